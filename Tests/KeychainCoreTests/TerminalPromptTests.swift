import Foundation
import TestSupport
import Testing

@testable import KeychainCore
@testable import KeychainPrompts

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal prompt (issue 13, DESIGN §11), through `prompt-probe` running with a pseudo-terminal as its
/// controlling terminal: the test types at the keyboard and reads the screen.
@Suite struct TerminalPromptTests {
    private let probe = PromptProbe()
    private let label = "Keychain passcode: "

    /// Starts the probe on a new pseudo-terminal and waits for its prompt.
    private func prompting(
        _ options: [String] = [], prompter: String = "terminal", environment: [String: String] = [:]
    ) throws -> (PseudoTerminal, SpawnedProcess) {
        let terminal = try PseudoTerminal()
        let process = try probe.start(prompter, options, environment: environment, terminal: terminal)
        try #require(terminal.read(until: label), "no prompt; the screen shows: \(terminal.transcriptText)")
        return (terminal, process)
    }

    private static let echo = UInt32(ECHO)
    private static let editing = UInt32(ICANON)
    private static let signalKeys = UInt32(ISIG)

    @Test func typedPasscodeIsReturnedAndNeverEchoed() throws {
        let (terminal, process) = try prompting(["--prompt", "Unlock the vault", "--program", "vault-tool"])
        #expect(terminal.transcriptText.contains("vault-tool wants to use your keychain: Unlock the vault\r\n"))
        // While the prompt is up, echo, line editing and the signal keys are off.
        let modes = try terminal.localModes()
        #expect(modes & Self.echo == 0)
        #expect(modes & Self.editing == 0)
        #expect(modes & Self.signalKeys == 0)
        try terminal.type("correct horse\r")
        let outcome = try probe.outcome(of: process)
        terminal.readToEnd(timeout: .seconds(5))
        #expect(outcome["outcome"] as? String == "entered")
        #expect(outcome["length"] as? Int == 13)
        #expect(outcome["hash"] as? String == (try probe.hash(of: "correct horse")))
        #expect(!terminal.transcriptText.contains("horse"), "the passcode was echoed: \(terminal.transcriptText)")
        // Afterwards the terminal is as it was.
        let restored = try terminal.localModes()
        #expect(restored & (Self.echo | Self.editing | Self.signalKeys) == Self.echo | Self.editing | Self.signalKeys)
    }

    @Test func backspaceAndControlUEditWhatWasTyped() throws {
        let (terminal, process) = try prompting()
        // "wrong" wiped by Control-U; "hunteré" loses its two-byte é to one Delete; then "r2".
        try terminal.type("wrong\u{15}hunter\u{E9}\u{7F}r\u{8}r2\n")
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "entered")
        #expect(outcome["hash"] as? String == (try probe.hash(of: "hunterr2")))
    }

    @Test(arguments: [
        ("an empty line", "\r"), ("Control-C", "\u{03}"), ("Control-D", "\u{04}"),
        ("Control-C after typing", "abc\u{03}"),
    ])
    func cancels(_ what: String, keys: String) throws {
        let (terminal, process) = try prompting()
        try terminal.type(keys)
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "canceled", "\(what): \(outcome)")
        // Control-C was a key, not a SIGINT: the probe lived to say so, and the terminal is restored.
        #expect(try terminal.localModes() & Self.echo != 0)
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalWhilePromptingRestoresEchoAndStillEndsTheProgram(_ signal: Int32) throws {
        let (terminal, process) = try prompting()
        #expect(try terminal.localModes() & Self.echo == 0)
        process.send(signal)
        try #require(process.wait() != nil, "the probe did not end")
        #expect(process.terminatingSignal == signal, "the signal's default action (ending the program) still ran")
        let restored = try terminal.localModes()
        #expect(restored & Self.echo != 0, "the terminal was left without echo")
        #expect(restored & Self.editing != 0)
    }

    @Test func aSignalTheProgramHandlesItselfCancelsThePromptWithEchoRestored() throws {
        let (terminal, process) = try prompting(["--count", String(SIGTERM)])
        process.send(SIGTERM)
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "canceled")
        #expect(outcome["signals"] as? Int == 1, "the program's own handler ran")
        #expect(try terminal.localModes() & Self.echo != 0)
    }

    @Test func aSignalTheProgramIgnoresLeavesThePromptAlone() throws {
        let (terminal, process) = try prompting(["--ignore", String(SIGHUP)])
        process.send(SIGHUP)
        // Still prompting, echo still off: the passcode typed next is taken and not shown.
        #expect(process.wait(timeout: .milliseconds(300)) == nil)
        #expect(try terminal.localModes() & Self.echo == 0)
        try terminal.type("still here\r")
        let outcome = try probe.outcome(of: process)
        #expect(outcome["hash"] as? String == (try probe.hash(of: "still here")))
    }

    @Test func aSecretOverTheLimitIsRefusedWholeNotCut() throws {
        let (terminal, process) = try prompting()
        try terminal.type(String(repeating: "a", count: SecretAccumulator.maximumByteCount + 1) + "\r")
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "unavailable")
        #expect((outcome["reason"] as? String)?.contains("longer than \(SecretAccumulator.maximumByteCount)") == true)
    }

    @Test func aLaterAttemptSaysTheLastWasWrongAndTheApplicationPasswordIsNamed() throws {
        let (terminal, process) = try {
            let terminal = try PseudoTerminal()
            let process = try probe.start(
                "terminal", ["--attempt", "2", "--kind", "application-password"], environment: [:],
                terminal: terminal)
            try #require(terminal.read(until: "Application password: "), "no prompt: \(terminal.transcriptText)")
            return (terminal, process)
        }()
        #expect(terminal.transcriptText.contains("Wrong application password, try again."))
        #expect(terminal.transcriptText.contains("prompt-probe wants to use a keychain item protected by a password"))
        try terminal.type("\u{03}")
        _ = try probe.outcome(of: process)
    }

    @Test func theCallersTextCannotDriveTheTerminal() throws {
        // An escape sequence (clear the screen) and a carriage return that would let the text overwrite the line.
        let (terminal, process) = try prompting(["--prompt", "\u{1B}[2J\rsudo wants your password"])
        #expect(!terminal.transcript.contains(0x1B))
        #expect(terminal.transcriptText.contains(": " + " [2J sudo wants your password"))
        try terminal.type("\u{03}")
        _ = try probe.outcome(of: process)
    }

    @Test func systemPrompterUsesTheTerminalBeforePinentry() throws {
        let directory = try TemporaryDirectory()
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D pinentry' 'OK'")
        let (terminal, process) = try prompting(prompter: "system", environment: pinentry.environment)
        try terminal.type("from the terminal\r")
        let outcome = try probe.outcome(of: process)
        #expect(outcome["hash"] as? String == (try probe.hash(of: "from the terminal")))
        #expect(try pinentry.commands().isEmpty, "pinentry was started although there was a terminal")
    }

    @Test func withoutATerminalTheTerminalPrompterIsUnavailable() throws {
        let process = try probe.start("terminal", environment: [:])
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "unavailable")
        #expect((outcome["reason"] as? String)?.contains("no controlling terminal") == true)
    }

    @Test func withoutATerminalOrAPinentryTheSystemPrompterIsUnavailable() throws {
        let empty = try TemporaryDirectory()
        let process = try probe.start("system", environment: ["PATH": empty.url.path])
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "unavailable")
        let reason = try #require(outcome["reason"] as? String)
        #expect(reason.contains("no controlling terminal"))
        #expect(reason.contains("no pinentry program"))
    }

    @Test func withoutATerminalTheSystemPrompterAsksPinentry() throws {
        let directory = try TemporaryDirectory()
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D from%20pinentry' 'OK'")
        let process = try probe.start("system", ["--prompt", "Read the token"], environment: pinentry.environment)
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "entered")
        #expect(outcome["hash"] as? String == (try probe.hash(of: "from pinentry")))
        #expect(try pinentry.commands().contains("SETDESC prompt-probe wants to use your keychain: Read the token"))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pinentry"),
            "skipped: /usr/bin/pinentry is not installed (Debian package pinentry-curses)"))
    func theSystemsPinentryWithoutATerminalOrDisplaySaysWhyRatherThanHang() throws {
        let process = try probe.start("system", environment: ["PATH": "/usr/bin:/bin"])
        let outcome = try probe.outcome(of: process)
        #expect(outcome["outcome"] as? String == "unavailable")
        #expect((outcome["reason"] as? String)?.contains("pinentry (/usr/bin/pinentry)") == true, "\(outcome)")
    }
}
