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

    /// Runs `security arguments…` with `input` on standard input; returns its status and output.
    func run(_ arguments: [String], input: String = "") throws -> Result {
        let stdin = try ChildPipe()
        let stdout = try ChildPipe()
        let stderr = try ChildPipe()
        let child = try Spawn.start(
            Self.executable, arguments, environment: processEnvironment,
            descriptors: [stdin.reading, stdout.writing, stderr.writing], controllingTerminal: nil)
        stdin.closeReading()
        stdout.closeWriting()
        stderr.closeWriting()
        // Write and read on separate threads: a large output must not block the child while we still write.
        let writer = Thread { stdin.writeAll(Array(input.utf8)) }
        writer.start()
        let errorsReader = PipeReader(stderr)
        let output = stdout.readAll()
        let errors = errorsReader.wait()
        let status = try Spawn.wait(child)
        return Result(
            status: status, output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self))
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
