import Foundation

/// Runs the `keychain-stress` executable built beside the test bundle (the worker processes of the multi-process,
/// crash and large-file tests).
public enum StressProcess {
    /// The executable's URL.
    public static var executable: URL { BuiltExecutable.named("keychain-stress") }

    /// Starts a worker with its output piped.
    public static func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        try startExecutable(executable, arguments)
    }

    /// Runs a worker to the end and returns its status, output and errors.
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try runExecutable(executable, arguments)
    }

    /// Starts another executable (`sync-store-probe`, a shell) the same way, with its output piped; `setting`
    /// is added to the test's environment.
    public static func startExecutable(
        _ executable: URL, _ arguments: [String], setting: [String: String] = [:]
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(setting) { $1 }
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Runs another executable to the end and returns its status, output and errors.
    public static func runExecutable(
        _ executable: URL, _ arguments: [String], setting: [String: String] = [:]
    ) throws -> (status: Int32, output: String, errors: String) {
        let (process, output, errors) = try startExecutable(executable, arguments, setting: setting)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    /// Complete lines of output (a line cut by a kill is dropped).
    public static func completeLines(_ data: Data) -> [String] {
        var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        lines.removeLast()
        return lines
    }
}
