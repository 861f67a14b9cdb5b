import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20, item 3: one local user cannot deny keychaind to another. Two users the test creates, real processes:
/// one floods the daemon, the other runs `security find-generic-password` as a script would. The daemon runs with
/// the descriptor limit its systemd unit gives it.
@Suite(
    "keychaind under one user's flood: another user is still served", .serialized, .timeLimit(.minutes(4)),
    .enabled(if: Wall.canCreateUsers, Wall.needsRoot))
struct DaemonFloodTests {
    /// How many finds each figure is the median of.
    static let runs = 15

    @Test(
        "One user's 1,100 idle connections and 100 parallel unlocks do not delay another user's find-generic-password past 100 ms over its quiet time"
    )
    func floodDoesNotDelayAnotherUser() throws {
        let flooder = try TestUser()
        let served = try TestUser()
        // A passcode cost that makes each unlock real work (64 MiB, 2 passes: about 70 ms here).
        let daemon = try DaemonProcess(arguments: ["--passcode-cost", "64x2"])
        chmod(daemon.directory.url.path, 0o755)
        try UnitLimits.apply(to: daemon)
        let home = try TemporaryDirectory(prefix: "kcw-served")
        guard chown(home.url.path, served.uid, served.gid) == 0 else { throw WallError("cannot chown the home") }
        let environment = [
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SWIFT_BACKTRACE": "enable=no", "HOME": home.url.path,
            "KEYCHAIN_DAEMON": daemon.socketPath,
        ]
        let security = BuiltExecutable.named("security").path
        let added = try TimedCommand.run(
            served.command([security, "add-generic-password", "-a", "served", "-s", "limits", "-w", "served secret"]),
            environment: environment, limit: 60)
        try #require(added.status == 0, "\(added.errors)")
        let find = served.command([security, "find-generic-password", "-a", "served", "-s", "limits", "-w"])
        func finds() throws -> [Double] {
            var seconds: [Double] = []
            for _ in 0..<Self.runs {
                let found = try TimedCommand.run(find, environment: environment, limit: 20)
                try #require(
                    found.status == 0 && found.output == "served secret\n",
                    "find-generic-password as the served user: status \(found.status.map(String.init) ?? "killed after 20 s"), \(found.errors)"
                )
                seconds.append(found.seconds)
            }
            return seconds
        }
        let quiet = try finds()

        let flood = try FloodingUser(
            flooder, probe: BuiltExecutable.named("keychaind-probe").path, socket: daemon.socketPath,
            unlockers: 100, idle: 1100, passcode: "flood passcode")
        let report = try flood.report(within: 120)
        let flooded = try finds()

        // The daemon kept its limit and said so; it did not run out of descriptors on the flooder's behalf.
        #expect(report.refused > 0, "the flooder's connections were never refused: \(report)")
        #expect(report.refusal?.contains("--max-connections-per-user") == true, "\(report)")
        #expect(!daemon.log.contains("trying again until it can"), "\(daemon.log)")
        let (quietMedian, floodedMedian) = (TimedCommand.median(quiet), TimedCommand.median(flooded))
        #expect(
            floodedMedian <= quietMedian + 0.1,
            "find took \(Int(floodedMedian * 1000)) ms under the flood, \(Int(quietMedian * 1000)) ms quiet")
    }
}

/// The limits `systemd/keychaind.service` gives the daemon, applied to a test's daemon: the descriptor limit
/// (`LimitNOFILE`, else systemd's default soft limit of 1,024).
enum UnitLimits {
    /// The repository's unit file.
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd/keychaind.service")

    /// The unit's `LimitNOFILE` (its soft value), or systemd's default.
    static func descriptors() throws -> Int {
        let text = try String(contentsOf: unit, encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix("LimitNOFILE=") }
        guard let line else { return 1024 }
        let value = line.dropFirst("LimitNOFILE=".count).split(separator: ":").first.map(String.init) ?? ""
        guard let limit = Int(value) else { throw WallError("keychaind.service has \(line)") }
        return limit
    }

    /// Sets the daemon's descriptor limit to the unit's, with util-linux's `prlimit`, no higher than the hard limit
    /// this machine gives the tests. Without `CAP_SYS_RESOURCE` (a container may lack it) only the daemon's own
    /// user may set its limits, and none may raise a hard limit: so `prlimit` runs as the daemon's user.
    static func apply(to daemon: DaemonProcess) throws {
        let pid = try #require(daemon.processIdentifier)
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw WallError("getrlimit: \(errno)")
        }
        let descriptors = min(try descriptors(), Int(clamping: limit.rlim_max))
        let prlimit = try #require(Wall.tool("prlimit"), "util-linux's prlimit is not installed")
        var command = [prlimit, "--pid", "\(pid)", "--nofile=\(descriptors)"]
        // Its real ids, from /proc/PID/status: the daemon is not dumpable, so /proc/PID itself is root's.
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8).split(separator: "\n")
        func id(_ field: String) -> String? {
            status.first { $0.hasPrefix(field + ":") }?.split(whereSeparator: \.isWhitespace).dropFirst().first
                .map(String.init)
        }
        if let uid = id("Uid"), let gid = id("Gid"), uid != "0" {
            let setpriv = Wall.tool("setpriv") ?? "/usr/bin/setpriv"
            command = [setpriv, "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command
        }
        let result = try Wall.run(command)
        guard result.status == 0 else { throw WallError("\(command.joined(separator: " ")): \(result.errors)") }
    }
}
