import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// One user's `security find-generic-password -w` through keychaind, timed as a whole process, on a quiet daemon
/// and while another user floods it (issue 20): 100 unlocks at once at the standard passcode cost, 1,100 idle
/// connections and 8 threads looking items up, from keychaind-probe's `flood` run as that user. Both users are
/// uids with no account (`setpriv` switches to them), so the bench must run as root; the probe is the release one
/// beside the bench (`make bench` builds it).
enum FloodBench {
    /// The figures, named as in the JSON report.
    struct Report: Codable {
        var runs: Int
        var quiet_p50_ms: Double
        var quiet_p99_ms: Double
        var flooded_p50_ms: Double
        var flooded_p99_ms: Double
        /// What the flooding user ran.
        var flood: String
        /// The flooder's idle connections the daemon welcomed, and those it refused.
        var held: Int
        var refused: Int
    }

    static let runs = 100
    static let unlockers = 100
    static let idle = 1100
    static let requesters = 8

    /// Runs the phase on `daemon`; a note instead when it cannot run here.
    static func run(daemon: BenchDaemon) throws -> (report: Report?, note: String?) {
        guard getuid() == 0 else { return (nil, "not measured: two users need root (run make bench as root)") }
        guard let tool = CLIBench.tool else { return (nil, "not measured: no release `security` beside the bench") }
        let probe = CLIBench.builtBeside("keychaind-probe")
        guard FileManager.default.isExecutableFile(atPath: probe), let setpriv = executable("setpriv") else {
            return (nil, "not measured: needs keychaind-probe beside the bench and setpriv (util-linux)")
        }
        let users = freeUIDs(2)
        let (flooder, served) = (users[0], users[1])
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        guard chown(home.path, served, served) == 0 else { throw BenchError("cannot chown \(home.path)") }
        let environment = [
            "KEYCHAIN_DAEMON=\(daemon.socketPath)", "HOME=\(home.path)", "SWIFT_BACKTRACE=enable=no",
            "PATH=/usr/bin:/bin",
        ]
        func asUser(_ uid: UInt32, _ command: [String]) -> [String] {
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command
        }
        try CLIBench.run(
            setpriv, asUser(served, [tool, "add-generic-password", "-a", "bench", "-s", "flood", "-w", "served"]),
            environment: environment)
        let find = asUser(served, [tool, "find-generic-password", "-a", "bench", "-s", "flood", "-w"])
        let quiet = try times(setpriv, find, environment)
        let flood = try Flooder(
            setpriv,
            asUser(
                flooder,
                [probe, daemon.socketPath, "flood", "\(unlockers)", "\(idle)", "bench flood", "\(requesters)"]))
        defer { flood.stop() }
        let started = try flood.report()
        let flooded = try times(setpriv, find, environment)
        func milliseconds(_ samples: [Double], _ fraction: Double) -> Double {
            samples.sorted()[min(samples.count - 1, Int(Double(samples.count) * fraction))]
        }
        return (
            Report(
                runs: runs, quiet_p50_ms: milliseconds(quiet, 0.5), quiet_p99_ms: milliseconds(quiet, 0.99),
                flooded_p50_ms: milliseconds(flooded, 0.5), flooded_p99_ms: milliseconds(flooded, 0.99),
                flood:
                    "\(unlockers) unlocks at once (\(PasscodeCost.standard)), \(idle) idle connections, "
                    + "\(requesters) lookup loops",
                held: started.held, refused: started.refused),
            nil
        )
    }

    /// The wall times in milliseconds of ``runs`` runs (after one untimed run).
    private static func times(_ tool: String, _ arguments: [String], _ environment: [String]) throws -> [Double] {
        try CLIBench.run(tool, arguments, environment: environment)
        var timings: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try CLIBench.run(tool, arguments, environment: environment)
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return timings
    }

    /// `count` uids no account has, from 61000 up.
    private static func freeUIDs(_ count: Int) -> [UInt32] {
        var found: [UInt32] = []
        var uid: UInt32 = 61000
        while found.count < count {
            if getpwuid(uid) == nil && getgrgid(uid) == nil { found.append(uid) }
            uid += 1
        }
        return found
    }

    private static func executable(_ name: String) -> String? {
        ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// keychaind-probe's `flood`, started as another user: its first line on standard output says it floods.
private final class Flooder {
    private var pid: pid_t = 0
    private let output: Int32

    /// What the probe's line says.
    struct Started: Decodable {
        var held: Int
        var refused: Int
    }

    init(_ executable: String, _ arguments: [String]) throws {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw BenchError("pipe: \(errno)") }
        output = pipe[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(output)
            throw BenchError("cannot start the flood: \(String(cString: strerror(spawned)))")
        }
    }

    deinit { stop() }

    /// The probe's first line, once it floods (at most two minutes).
    func report() throws -> Started {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        while byte != UInt8(ascii: "\n") {
            guard poll(&entry, 1, 120_000) > 0, read(output, &byte, 1) == 1 else {
                throw BenchError("the flooding user never said it floods")
            }
            line.append(byte)
        }
        return try JSONDecoder().decode(Started.self, from: Data(line))
    }

    /// SIGKILLs and reaps the probe (idempotent).
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        pid = 0
        close(output)
    }
}
