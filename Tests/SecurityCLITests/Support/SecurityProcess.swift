import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the `security` executable built beside the test bundle as a subprocess, in a session of its own, so it never
/// has a controlling terminal (a test run from a terminal must not be able to prompt on it): prompts then read
/// standard input, and an implicit passcode prompt fails as it does in CI.
struct SecurityProcess {
    /// What a run produced.
    struct Result {
        /// The exit status (the low byte of the tool's result).
        let status: Int32
        /// Standard output.
        let output: String
        /// Standard error.
        let errors: String
    }

    /// The test's directory, kept as long as the tool runs in it.
    let testHome: TestHome
    /// `KEYCHAIN_HOME` for the run: the default keychain's directory.
    var home: URL { testHome.defaultKeychain }
    /// Extra environment variables.
    var environment: [String: String] = [:]

    /// The executable's path.
    static var executable: String { BuiltExecutable.named("security").path }

    /// What a run produced, as bytes.
    struct RawResult {
        /// The exit status (the low byte of the tool's result).
        let status: Int32
        /// Standard output.
        let output: [UInt8]
        /// Standard error.
        let errors: String
    }

    /// Runs `security arguments…` with `input` on standard input; returns its status and output.
    func run(_ arguments: [String], input: String = "") throws -> Result {
        let result = try run(bytes: arguments.map { Array($0.utf8) }, input: Array(input.utf8))
        return Result(
            status: result.status, output: String(decoding: result.output, as: UTF8.self), errors: result.errors)
    }

    /// Runs `security arguments…` with `standardError` as the child's standard error (the result's errors are then
    /// empty).
    func run(_ arguments: [String], standardError: Int32) throws -> Result {
        let result = try run(bytes: arguments.map { Array($0.utf8) }, input: [], standardError: standardError)
        return Result(
            status: result.status, output: String(decoding: result.output, as: UTF8.self), errors: result.errors)
    }

    /// Runs `security arguments…` with arguments and standard input given as bytes (neither need be UTF-8).
    /// `standardOutput` and `standardError`, when given, are the child's instead of pipes (negative: closed); the
    /// result's output or errors are then empty.
    func run(
        bytes arguments: [[UInt8]], input: [UInt8], standardOutput: Int32? = nil, standardError: Int32? = nil
    ) throws -> RawResult {
        let stdin = try ChildPipe()
        let stdout = try ChildPipe()
        let stderr = try ChildPipe()
        let child = try Spawn.start(
            Self.executable, bytes: arguments, environment: processEnvironment,
            descriptors: [stdin.reading, standardOutput ?? stdout.writing, standardError ?? stderr.writing],
            controllingTerminal: nil)
        stdin.closeReading()
        stdout.closeWriting()
        stderr.closeWriting()
        // Write and read on separate threads: a large output must not block the child while we still write.
        let writer = Thread { stdin.writeAll(input) }
        writer.start()
        let errorsReader = PipeReader(stderr)
        let output = stdout.readAll()
        let errors = errorsReader.wait()
        let status = try Spawn.wait(child)
        return RawResult(status: status, output: output, errors: String(decoding: errors, as: UTF8.self))
    }

    /// The environment of a run: this process's, with `KEYCHAIN_HOME` pointing at the test's directory.
    var processEnvironment: [String: String] {
        var values = ProcessInfo.processInfo.environment
        values["KEYCHAIN_HOME"] = home.path
        values["SWIFT_BACKTRACE"] = "enable=no"
        values["KEYCHAIN_ENTITLEMENTS"] = nil
        values.merge(environment) { _, new in new }
        return values
    }
}
