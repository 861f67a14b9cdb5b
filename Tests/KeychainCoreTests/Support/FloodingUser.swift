import Foundation
import Synchronization
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

    private let process = Process()
    private let output = Output()

    private final class Output: Sendable {
        let text = Mutex("")
    }

    /// Starts `probe SOCKET flood UNLOCKERS IDLE PASSCODE REQUESTERS` as `user`.
    init(
        _ user: TestUser, probe: String, socket: String, unlockers: Int, idle: Int, passcode: String,
        requesters: Int = 0
    ) throws {
        let command = user.command(
            [probe, socket, "flood", String(unlockers), String(idle), passcode, String(requesters)])
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SWIFT_BACKTRACE": "enable=no"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning {
            // setpriv execs the probe, so this pid is the flooding process itself.
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// The probe's report once it floods (polled every 10 ms for at most `seconds`).
    func report(within seconds: Double) throws -> Report {
        for _ in 0..<Int(seconds * 100) {
            let text = output.text.withLock { $0 }
            if let line = text.split(separator: "\n").first {
                do {
                    return try JSONDecoder().decode(Report.self, from: Data(line.utf8))
                } catch {
                    throw WallError("the flooding probe printed \(line)")
                }
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw WallError("the flooding probe reported nothing within \(seconds) s (running: \(process.isRunning))")
    }
}
