import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `prompt-probe` (a program that asks with KeychainCore's prompters and prints the outcome, never the
/// secret) on a pseudo-terminal or without a terminal, and reads its outcome.
struct PromptProbe {
    /// The key the probe hashes the secret under; the test hashes what it typed under the same key.
    let key: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    /// Starts the probe with `prompter` (system, terminal, pinentry) and `options`.
    func start(
        _ prompter: String, _ options: [String] = [], environment: [String: String],
        terminal: PseudoTerminal? = nil
    ) throws -> SpawnedProcess {
        var environment = environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return try SpawnedProcess(
            BuiltExecutable.named("prompt-probe"),
            [prompter, "--key", key.map { String(format: "%02x", $0) }.joined()] + options,
            environment: environment, terminal: terminal)
    }

    /// The probe's outcome line, once it has exited.
    func outcome(of process: SpawnedProcess) throws -> [String: Any] {
        let status = try #require(process.wait(), "prompt-probe did not exit")
        let output = process.readOutput()
        #expect(process.exitCode == 0, "prompt-probe ended with status \(status): \(process.readErrors())")
        let line = try #require(output.split(separator: "\n").last, "prompt-probe printed nothing")
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(line)")
    }

    /// The hash the probe prints for `secret`.
    func hash(of secret: String) throws -> String {
        try KeyedHash.hash(Array(secret.utf8), key: SecretKey(copying: key)).map { String(format: "%02x", $0) }
            .joined()
    }
}

/// A pinentry stand-in: a shell script a test writes into its temporary directory that speaks Assuan, answers
/// `GETPIN` as the test says, and logs every command it receives (one a line) and its process id.
struct FakePinentry {
    /// The script.
    let program: URL
    /// Its log.
    let log: URL

    /// Writes the script into `directory`: it greets with `greeting`, answers `GETPIN` with the shell commands
    /// `getPIN` and every other command with `OK`.
    init(in directory: TemporaryDirectory, greeting: String = "echo 'OK Pleased to meet you'", getPIN: String) throws {
        program = directory.file("pinentry")
        log = directory.file("pinentry.log")
        let script = """
            #!/bin/sh
            log='\(log.path)'
            echo "pid $$" >> "$log"
            \(greeting)
            while IFS= read -r line; do
                printf '%s\\n' "$line" >> "$log"
                case "$line" in
                    GETPIN) \(getPIN) ;;
                    BYE) echo 'OK closing connection'; exit 0 ;;
                    *) echo OK ;;
                esac
            done

            """
        try ExecutableCopy.write(Data(script.utf8), to: program.path)
    }

    /// The commands it received, in order (its `pid` line left out).
    func commands() throws -> [String] {
        guard FileManager.default.fileExists(atPath: log.path) else { return [] }
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("pid ") }
    }

    /// The script's process id, as it logged it.
    func pid() throws -> pid_t? {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("pid ") }.flatMap { pid_t($0.dropFirst(4)) }
    }

    /// An environment where pinentry is this script, and nothing else is found on `PATH` but the system's tools.
    var environment: [String: String] { ["PINENTRY_PROGRAM": program.path, "PATH": "/usr/bin:/bin"] }
}
