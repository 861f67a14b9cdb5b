import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon the tests start is the deployed one: what the kernel says of its process, not what the harness meant.
@Suite(
    "The tests' keychaind runs as deployed", .timeLimit(.minutes(1)),
    .enabled(if: DaemonProcess.canDeploy, Comment(rawValue: DaemonProcess.needsDeployment)))
struct DeployedDaemonTests {
    /// `CAP_SYS_PTRACE` (19) alone, as /proc/PID/status prints a capability set.
    static let ptraceOnly = String(format: "%016llx", UInt64(1) << 19)

    @Test("As the keychaind user and group, no supplementary groups, only CAP_SYS_PTRACE, no new privileges")
    func credentials() throws {
        let daemon = try DaemonProcess()
        #expect(daemon.account == .deployed)
        let user = try #require(daemon.deployedUser)
        #expect(user.uid != 0 && getpwnam("keychaind")?.pointee.pw_uid == user.uid)
        let pid = try #require(daemon.processIdentifier)
        let fields = try Self.status(of: pid)
        #expect(fields["Uid"] == Array(repeating: "\(user.uid)", count: 4), "real, effective, saved, file system")
        #expect(fields["Gid"] == Array(repeating: "\(user.gid)", count: 4))
        #expect(fields["Groups"] == [])
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            #expect(fields[set] == [Self.ptraceOnly], "\(set)")
        }
        #expect(fields["NoNewPrivs"] == ["1"])
        // What it creates is its own, and private.
        _ = try DaemonClient(socketPath: daemon.socketPath).send(.describe)
        var info = stat()
        #expect(stat(daemon.stateDirectory.path, &info) == 0)
        #expect(info.st_uid == user.uid && info.st_mode & 0o777 == 0o700)
    }

    @Test("Through a socket activator, the daemon it execs is the deployed one too")
    func socketActivated() throws {
        let activate = try #require(
            ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "systemd-socket-activate is not installed (scripts/bootstrap installs systemd's tools)")
        let daemon = try DaemonProcess(socketActivatedBy: URL(fileURLWithPath: activate))
        let user = try #require(daemon.deployedUser)
        _ = try DaemonClient(socketPath: daemon.socketPath).send(.describe)
        let pid = try #require(daemon.processIdentifier)
        let fields = try Self.status(of: pid)
        #expect(fields["Uid"]?.first == "\(user.uid)" && fields["CapEff"] == [Self.ptraceOnly])
    }

    /// The fields of /proc/PID/status, each split on white space.
    static func status(of pid: Int32) throws -> [String: [String]] {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        var fields: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].split(whereSeparator: \.isWhitespace)
                .map(String.init)
        }
        return fields
    }
}
