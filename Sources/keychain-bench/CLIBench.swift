import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The `security` command as a script runs it: one `find-generic-password -w` on a keychain without a passcode,
/// timed as a whole process (spawn, start, open the keychain, find, print, exit, wait). The release `security` is
/// built beside this bench (`make bench` builds both).
enum CLIBench {
    /// How many runs the median is taken over.
    static let runs = 50

    /// The median wall time of one run in milliseconds, or `nil` when no `security` is built beside the bench.
    static func medianFindMilliseconds() throws -> Double? {
        try medianFindAndFloorMilliseconds()?.find
    }

    /// The median wall time of one run in milliseconds, and of the whole-process floor on the same keychain (a C
    /// program that opens its SQLite file and reads one row: `keychain-bench-floor`, when built beside the bench),
    /// taking turns in runs of ten; `nil` when no `security` is built beside the bench.
    static func medianFindAndFloorMilliseconds() throws -> (find: Double, floor: Double?)? {
        guard let tool else { return nil }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keychain = directory.appendingPathComponent("cli-bench").path
        try run(tool, ["create-keychain", "-p", "", keychain])
        try run(tool, ["add-generic-password", "-a", "bench", "-s", "cli-bench", "-w", "bench secret", keychain])
        let find = ["find-generic-password", "-a", "bench", "-s", "cli-bench", "-w", keychain]
        let floorTool = builtBeside("keychain-bench-floor")
        guard FileManager.default.isExecutableFile(atPath: floorTool) else {
            return (try medianMilliseconds(tool, find), nil)
        }
        var finds: [Double] = []
        var floors: [Double] = []
        for _ in 0..<(runs / 10) {
            finds.append(try medianMilliseconds(tool, find, runs: 10))
            floors.append(try medianMilliseconds(floorTool, [keychain], runs: 10))
        }
        return (finds.sorted()[finds.count / 2], floors.sorted()[floors.count / 2])
    }

    /// The release `security`: `KEYCHAIN_BENCH_SECURITY` when set (`make bench` names the static build, which has a
    /// scratch path of its own), else the one beside this bench, if it is built.
    static var tool: String? {
        let named = ProcessEnvironment.current.nonEmpty("KEYCHAIN_BENCH_SECURITY")
        let tool = named ?? builtBeside("security")
        return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil
    }

    /// The path of the executable `name` in this bench's own directory.
    static func builtBeside(_ name: String) -> String {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// The median wall time in milliseconds of ``runs`` runs of the tool with `arguments` (after one untimed run,
    /// which reads the binary into the page cache). `environment` replaces the bench's own when given.
    static func medianMilliseconds(
        _ tool: String, _ arguments: [String], environment: [String]? = nil, runs: Int = runs
    ) throws -> Double {
        try run(tool, arguments, environment: environment)
        var timings: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try run(tool, arguments, environment: environment)
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return timings.sorted()[runs / 2]
    }

    /// Spawns the tool with standard output to `/dev/null` and waits for it; throws unless it exits with 0.
    /// `environment` (`NAME=value` strings) replaces the bench's own when given.
    static func run(_ tool: String, _ arguments: [String], environment: [String]? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var environmentStrings: [UnsafeMutablePointer<CChar>?] = []
        for variable in environment ?? [] { environmentStrings.append(strdup(variable)) }
        environmentStrings.append(nil)
        defer { environmentStrings.forEach { free($0) } }
        let spawned: Int32
        if environment != nil {
            spawned = posix_spawn(&pid, tool, &actions, nil, argv, environmentStrings)
        } else {
            spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        }
        guard spawned == 0 else {
            throw CLIBenchError(message: "cannot start \(tool): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else {
            throw CLIBenchError(message: "security \(arguments.joined(separator: " ")) failed (wait status \(status))")
        }
    }
}

/// A failed step of the CLI bench.
struct CLIBenchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
