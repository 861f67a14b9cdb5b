import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// keychaind-probe's `flood` run as a test user: parallel unlocks, idle connections (and lookups) from one uid,
/// until released (SIGKILLed and reaped, whatever the test's outcome).
final class FloodingUser {
    /// The line the probe prints once it floods.
    struct Report: Decodable {
        var held: Int
        var refused: Int
        var closed: Int
        var unanswered: Int
        var unconnected: Int
        var refusal: String?
    }

    private let pid: pid_t
    private let output: ChildPipe

    /// Starts `probe SOCKET flood UNLOCKERS IDLE PASSCODE REQUESTERS` as `user`.
    init(
        _ user: TestUser, probe: String, socket: String, unlockers: Int, idle: Int, passcode: String,
        requesters: Int = 0
    ) throws {
        let command = user.command(
            [probe, socket, "flood", String(unlockers), String(idle), passcode, String(requesters)])
        output = try ChildPipe()
        // setpriv execs the probe, so this pid is the flooding process itself.
        pid = try Spawn.start(
            command[0], Array(command.dropFirst()),
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SWIFT_BACKTRACE": "enable=no"],
            descriptors: [-1, output.writing, -1], controllingTerminal: nil)
        output.closeWriting()
    }

    deinit {
        kill(pid, SIGKILL)
        _ = try? Spawn.waitStatus(pid)
    }

    /// The probe's report once it floods (waiting at most `seconds`).
    func report(within seconds: Double) throws -> Report {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var entry = pollfd(fd: output.reading, events: Int16(POLLIN), revents: 0)
        while byte != UInt8(ascii: "\n") {
            guard poll(&entry, 1, Int32(seconds * 1000)) > 0, read(output.reading, &byte, 1) == 1 else {
                throw WallError("the flooding probe reported nothing within \(seconds) s")
            }
            line.append(byte)
        }
        do {
            return try JSONDecoder().decode(Report.self, from: Data(line))
        } catch {
            throw WallError("the flooding probe printed \(String(decoding: line, as: UTF8.self))")
        }
    }
}
