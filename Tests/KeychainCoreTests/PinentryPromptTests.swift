import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore
@testable import KeychainPrompts

#if canImport(Glibc)
    import Glibc
#endif

/// The pinentry prompt (issue 13, DESIGN §11) against fake pinentry programs that speak Assuan (shell scripts
/// each test writes), run by ``PinentryPrompter`` in the test's own process.
@Suite struct PinentryPromptTests {
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func ask(
        _ pinentry: FakePinentry, _ request: SecretPromptRequest = SecretPromptRequest(callingProgram: "tests"),
        timeout: Duration = .seconds(30)
    ) -> SecretPromptOutcome {
        PinentryPrompter(environment: pinentry.environment, timeout: timeout).ask(request)
    }

    private func entered(_ outcome: SecretPromptOutcome) -> [UInt8]? {
        guard case .entered(let secret) = outcome else { return nil }
        return secret.withUnsafeBytes { Array($0) }
    }

    private func reason(_ outcome: SecretPromptOutcome) -> String? {
        guard case .unavailable(let reason) = outcome else { return nil }
        return reason
    }

    @Test func thePINIsDecodedAcrossDataLinesPastStatusAndCommentLines() throws {
        let pinentry = try FakePinentry(
            in: directory, getPIN: "printf '%s\\n' '# thinking' 'S PROGRESS 1' 'D 100%25 pass' 'D %0Aword' 'OK'")
        let outcome = ask(pinentry)
        #expect(entered(outcome) == Array("100% pass\nword".utf8), "\(outcome)")
    }

    @Test func theDescriptionNamesTheProgramAndTheOperationPromptPercentEscaped() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D x' 'OK'")
        let request = SecretPromptRequest(
            operationPrompt: "Unlock 100% of\nthe vault", callingProgram: "vault-tool", cancelTitle: "Not now",
            attempt: 2)
        let outcome = ask(pinentry, request)
        #expect(entered(outcome) == Array("x".utf8), "\(outcome)")
        let commands = try pinentry.commands()
        #expect(commands.contains("SETDESC vault-tool wants to use your keychain: Unlock 100%25 of%0Athe vault"))
        #expect(commands.contains("SETPROMPT Keychain passcode:"))
        #expect(commands.contains("SETCANCEL Not now"))
        #expect(commands.contains("SETERROR Wrong passcode, try again."))
        #expect(commands.contains("SETTITLE Keychain"))
        // GETPIN comes after the texts, and the conversation ends with BYE.
        let getPIN = try #require(commands.firstIndex(of: "GETPIN"))
        #expect(commands.firstIndex { $0.hasPrefix("SETDESC ") }.map { $0 < getPIN } == true)
        #expect(commands.last == "BYE")
    }

    @Test func aFirstAttemptShowsNoErrorAndAnApplicationPasswordIsNamed() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D x' 'OK'")
        _ = ask(pinentry, SecretPromptRequest(kind: .applicationPassword, callingProgram: "tests"))
        let commands = try pinentry.commands()
        #expect(commands.contains("SETPROMPT Application password:"))
        #expect(!commands.contains { $0.hasPrefix("SETERROR") })
        #expect(!commands.contains { $0.hasPrefix("SETCANCEL") })
    }

    @Test func optionsComeFromTheEnvironment() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D x' 'OK'")
        var environment = pinentry.environment
        environment["GPG_TTY"] = "/dev/pts/9"
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        _ = PinentryPrompter(environment: environment).ask(SecretPromptRequest())
        let commands = try pinentry.commands()
        #expect(commands.contains("OPTION ttyname=/dev/pts/9"))
        #expect(commands.contains("OPTION ttytype=xterm-256color"))
        #expect(commands.contains("OPTION lc-ctype=C.UTF-8"))
    }

    @Test(arguments: ["ERR 83886179 Operation cancelled <Pinentry>", "ERR 99 canceled", "ERR 83886278 fully canceled"])
    func aCancelIsCanceled(_ error: String) throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "echo '\(error)'")
        let outcome = ask(pinentry)
        guard case .canceled = outcome else {
            Issue.record("expected canceled, got \(outcome)")
            return
        }
    }

    @Test func anEmptyPINIsACancel() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "echo OK")
        guard case .canceled = ask(pinentry) else {
            Issue.record("an empty PIN was not a cancel")
            return
        }
    }

    @Test func anotherErrorIsUnavailableWithPinentrysText() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "echo 'ERR 83918950 Inappropriate ioctl for device'")
        let why = try #require(reason(ask(pinentry)))
        #expect(why.contains("Inappropriate ioctl for device"))
        #expect(why.contains("83918950"))
    }

    @Test(arguments: [
        ("a greeting that is not OK", "echo 'HELLO there'", "printf '%s\\n' 'D x' 'OK'", "did not greet"),
        ("a line that is not Assuan", "echo 'OK hi'", "echo 'PIN: hunter2'", "not Assuan"),
        ("a malformed escape", "echo 'OK hi'", "printf '%s\\n' 'D bad%zz' 'OK'", "malformed %-escape"),
        ("an ERR without a code", "echo 'OK hi'", "echo 'ERR oops'", "without a code"),
        ("an exit mid-conversation", "echo 'OK hi'", "exit 0", "closed the connection"),
        ("no greeting at all", "exit 3", "echo OK", "closed the connection"),
    ])
    func garbageIsUnavailableNeverACrash(_ what: String, greeting: String, getPIN: String, expected: String) throws {
        let pinentry = try FakePinentry(in: directory, greeting: greeting, getPIN: getPIN)
        let outcome = ask(pinentry)
        let why = try #require(reason(outcome), "\(what): \(outcome)")
        #expect(why.contains(expected), "\(what): \(why)")
        #expect(!why.contains("hunter2") || expected == "not Assuan")
    }

    @Test func aLineOverAssuansLimitIsRefused() throws {
        let long = String(repeating: "A", count: 1200)
        let pinentry = try FakePinentry(in: directory, getPIN: "echo 'D \(long)'")
        let why = try #require(reason(ask(pinentry)))
        #expect(why.contains("longer than Assuan's 1000 bytes"))
    }

    @Test func anInquiryGetsAnEmptyAnswer() throws {
        let pinentry = try FakePinentry(
            in: directory,
            getPIN: "echo 'INQUIRE QUALITY x'; IFS= read -r reply; printf '%s\\n' \"$reply\" >> \"$log\"; "
                + "printf '%s\\n' 'D after' 'OK'")
        #expect(entered(ask(pinentry)) == Array("after".utf8))
        #expect(try pinentry.commands().contains("END"))
    }

    @Test func aPinentryThatHangsIsKilledAfterTheTimeoutAndReaped() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "exec sleep 600")
        let outcome = ask(pinentry, timeout: .seconds(1))
        let why = try #require(reason(outcome), "\(outcome)")
        #expect(why.contains("did not answer within"))
        let pid = try #require(try pinentry.pid())
        // Killed and reaped: no such process any more (a zombie would still answer kill 0).
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func aLongOperationPromptIsCutToAssuansLineLimit() throws {
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D x' 'OK'")
        let request = SecretPromptRequest(operationPrompt: String(repeating: "%", count: 2000), callingProgram: "t")
        #expect(entered(ask(pinentry, request)) == Array("x".utf8))
        let description = try #require(try pinentry.commands().first { $0.hasPrefix("SETDESC ") })
        #expect(description.utf8.count < AssuanChannel.maximumLineLength)
        #expect(description.hasSuffix("%25…"))
    }

    @Test func noPinentryIsUnavailable() throws {
        let empty = try TemporaryDirectory()
        let why = try #require(reason(PinentryPrompter(environment: ["PATH": empty.url.path]).ask(.init())))
        #expect(why.contains("no pinentry program"))
        let named = try #require(
            reason(PinentryPrompter(environment: ["PINENTRY_PROGRAM": empty.file("absent").path]).ask(.init())))
        #expect(named.contains("PINENTRY_PROGRAM"))
    }

    @Test func pinentryIsFoundOnThePath() throws {
        _ = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D on%20the%20path' 'OK'")
        let outcome = PinentryPrompter(environment: ["PATH": "/nonexistent:\(directory.url.path):/usr/bin:/bin"])
            .ask(.init())
        #expect(entered(outcome) == Array("on the path".utf8))
    }

    @Test func aPINOverTheLimitIsRefusedWholeNotCut() throws {
        let half = String(repeating: "A", count: SecretAccumulator.maximumByteCount / 2 + 1)
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D \(half)' 'D \(half)' 'OK'")
        let why = try #require(reason(ask(pinentry)))
        #expect(why.contains("longer than \(SecretAccumulator.maximumByteCount) bytes"))
    }

    @Test func escapingAndDecodingRoundTrip() throws {
        let text = "50% off\r\nnext line %0A literal"
        let escaped = AssuanEscaping.escaped(text)
        #expect(escaped == "50%25 off%0D%0Anext line %250A literal")
        let secret = try SecretAccumulator()
        let decoded = Array(escaped.utf8).withUnsafeBytes { AssuanEscaping.decode($0, into: secret) }
        #expect(decoded)
        let bytes = try #require(try secret.finish()).withUnsafeBytes { Array($0) }
        #expect(bytes == Array(text.utf8))
        // A % at the very end, or before non-hexadecimal digits, is malformed.
        for malformed in ["abc%", "abc%4", "%G0"] {
            #expect(!Array(malformed.utf8).withUnsafeBytes { AssuanEscaping.decode($0, into: secret) }, "\(malformed)")
        }
    }

    /// The system's pinentry-curses (Debian's `pinentry-curses`), drawing its dialog on a pseudo-terminal that
    /// `GPG_TTY` names, as it would on the user's terminal: `keys` typed there; the outcome.
    private func askSystemPinentryCurses(typing keys: String) throws -> SecretPromptOutcome? {
        let program = Self.pinentryCurses
        let terminal = try PseudoTerminal()
        let environment = [
            "PINENTRY_PROGRAM": program, "PATH": "/usr/bin:/bin", "GPG_TTY": terminal.slavePath, "TERM": "vt100",
            "LANG": "C.UTF-8",
        ]
        let result = Mutex<SecretPromptOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let request = SecretPromptRequest(operationPrompt: "Read the token", callingProgram: "tests")
        Thread {
            let outcome = PinentryPrompter(environment: environment, timeout: .seconds(60)).ask(request)
            result.withLock { $0 = outcome }
            done.signal()
        }.start()
        try #require(
            terminal.read(until: "Keychain passcode:"), "no dialog; the terminal shows: \(terminal.transcriptText)")
        #expect(terminal.transcriptText.contains("tests wants to use your keychain: Read the token"))
        try terminal.type(keys)
        try #require(done.wait(timeout: .now() + 60) == .success, "pinentry-curses did not answer")
        return result.withLock { $0 }
    }

    static let pinentryCurses = "/usr/bin/pinentry-curses"
    static let hasPinentryCurses = FileManager.default.isExecutableFile(atPath: pinentryCurses)

    @Test(.enabled(if: hasPinentryCurses, "skipped: /usr/bin/pinentry-curses is not installed (pinentry-curses)"))
    func theSystemsPinentryCursesTakesThePINTypedOnItsTerminal() throws {
        guard let outcome = try askSystemPinentryCurses(typing: "s3cret pin\r") else { return }
        #expect(entered(outcome) == Array("s3cret pin".utf8), "\(outcome)")
    }

    @Test(.enabled(if: hasPinentryCurses, "skipped: /usr/bin/pinentry-curses is not installed (pinentry-curses)"))
    func theSystemsPinentryCursesCanceledWithItsCancelButtonIsCanceled() throws {
        // Tab to <OK>, Tab to <Cancel>, Return: pinentry answers ERR 83886179 (GPG_ERR_CANCELED from pinentry).
        guard let outcome = try askSystemPinentryCurses(typing: "\t\t\r") else { return }
        guard case .canceled = outcome else {
            Issue.record("expected canceled, got \(outcome)")
            return
        }
    }
}
