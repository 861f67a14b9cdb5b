import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainPrompts
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20, item 6: a typed passcode travels as bytes in guarded memory (``Passcode``) from the prompt, through the
/// authentication loop, the backend and keychaind's wire, to Argon2id, and no `String` of it is ever made; the
/// buffers of keychaind's messages are wiped once used, in the client and in the daemon.
@Suite("Item 6: typed passcodes stay in guarded memory from the prompt to Argon2id; messages are wiped")
struct PasscodeMemoryTests {
    /// Reading another process's memory needs the right to trace it; root has it.
    static var canReadMemory: Bool { geteuid() == 0 }

    @Test(
        "The types: what a prompt gives, what contexts, the loop and requests carry, what the backend and the wire take is a Passcode"
    )
    func types() throws {
        let typed = Passcode(try SecureBytes(count: 8))
        #expect("\(typed)" == "Passcode(redacted)" && String(reflecting: typed).contains("redacted"))
        // The authentication a request carries.
        #expect(type(of: ItemAuthentication().passcode) == Passcode?.self)
        #expect(type(of: ItemAuthentication().applicationPassword) == Passcode?.self)
        // What a context asks for: the prompter's guarded bytes, as they are (not a copy made through text).
        let bytes = try SecureBytes(count: 4)
        bytes.withUnsafeMutableBytes { $0.copyBytes(from: [0xFF, 0xFE, 0x00, 0x41]) }
        let context = AuthenticationContext(prompter: FixedPrompter(secret: bytes))
        let asked = try context.ask(.passcode, reason: nil, attempt: 1)
        #expect(type(of: asked) == Passcode.self)
        #expect(
            asked.withUnsafeBytes { Array($0) } == [0xFF, 0xFE, 0x00, 0x41], "bytes that are not UTF-8 stay as typed")
        // The backend's requirements (a backend that implements only these conforms: RecordingBackend does).
        let unlock: (any KeychainBackend, Passcode) throws(EngineError) -> Void = { try $0.unlock(passcode: $1) }
        let check: (any KeychainBackend, Passcode) throws(EngineError) -> Void = { try $0.checkPasscode($1) }
        let engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
        try engine.setPasscode(asked, current: nil)
        engine.lock()
        try check(engine, asked)
        #expect(try engine.keybagStatus().isLocked, "a check unlocks nothing")
        try unlock(engine, asked)
        #expect(try !engine.keybagStatus().isLocked)
        // The wire carries the bytes, and reads them straight into guarded memory.
        let message = try DaemonCoding.encode(DaemonEnvelope(request: .backend(.unlock(asked))))
        guard case .backend(.unlock(let carried)) = try DaemonCoding.decode(DaemonEnvelope.self, from: message).request
        else {
            Issue.record("the unlock request did not come back")
            return
        }
        #expect(type(of: carried) == Passcode.self && carried == asked)
    }

    @Test(
        "An embedded keychain: a program that asks for the passcode (pinentry), unlocks with it and reads a .userPresence item keeps no copy of it",
        .enabled(if: canReadMemory, "reading another process's memory needs root"))
    func embedded() throws {
        let directory = try TemporaryDirectory()
        let passcode = Self.randomPasscode()
        let engine = try Engine(storage: .directory(directory.keychain), options: EngineOptions(passcodeCost: .minimum))
        try engine.setPasscode(passcode, current: nil)
        try Self.addProtectedItem(to: engine)
        let probe = try Self.start(["--keychain", directory.keychain.path], passcode: passcode, in: directory)
        #expect(try probe.readLine() == #"{"length":6,"outcome":"unlocked"}"#)
        #expect(try !ProcessInspection.writableMemory(of: probe.pid, contains: Self.middle(of: passcode)))
        probe.send("done")
        _ = try probe.finish()
    }

    @Test(
        "Through keychaind: neither the program nor the daemon keeps a copy of the passcode it asked for and sent",
        .enabled(if: canReadMemory, "reading another process's memory needs root"))
    func throughDaemon() throws {
        let daemon = try DaemonProcess()
        let passcode = Self.randomPasscode()
        let client = DaemonClient(socketPath: daemon.socketPath)
        try client.setPasscode(passcode, current: nil)
        try Self.addProtectedItem(to: client)
        try client.lock()
        let directory = try TemporaryDirectory()
        let probe = try Self.start(["--socket", daemon.socketPath], passcode: passcode, in: directory)
        #expect(try probe.readLine() == #"{"length":6,"outcome":"unlocked"}"#)
        let daemonPID = try #require(daemon.processIdentifier)
        #expect(try !ProcessInspection.writableMemory(of: probe.pid, contains: Self.middle(of: passcode)))
        #expect(try !ProcessInspection.writableMemory(of: daemonPID, contains: Self.middle(of: passcode)))
        probe.send("done")
        _ = try probe.finish()
    }

    /// 700 random letters and digits (a prompt takes up to 1,024 bytes): a `String` of it lives on the heap in a
    /// block of a size few later allocations ask for, so a freed copy stays there, all but its first bytes.
    static func randomPasscode() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<700).map { _ in alphabet.randomElement() ?? "x" })
    }

    /// The middle of the passcode: what a freed heap block, or a copy in any buffer, still shows.
    static func middle(of passcode: String) -> [UInt8] {
        Array(Array(passcode.utf8)[300..<364])
    }

    /// A `.userPresence` generic password, `probe` in group `probe`, whose data only the passcode opens.
    static func addProtectedItem(to backend: any KeychainBackend) throws {
        let caller = Caller(applicationIdentifier: "probe", accessGroups: ["probe"])
        let item = NewItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string("probe"), .accessible: .string("aku"),
                .accessControl: try AccessConstraint(flags: .userPresence).attributeValue,
            ],
            data: Data("secret".utf8))
        try backend.add(item, for: caller)
    }

    /// Starts `prompt-probe unlock` with a pinentry (no terminal) that answers every prompt with `passcode`.
    static func start(_ target: [String], passcode: String, in directory: TemporaryDirectory) throws -> PipeSession {
        let pinentry = try FakePinentry(in: directory, getPIN: "printf '%s\\n' 'D \(passcode)' 'OK'")
        var environment = pinentry.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return try PipeSession(
            BuiltExecutable.named("prompt-probe").path, ["unlock"] + target + ["--account", "probe"],
            environment: environment)
    }
}

/// A prompter that answers with the same guarded bytes every time.
private struct FixedPrompter: SecretPrompter {
    let secret: SecureBytes

    func ask(_ request: SecretPromptRequest) -> SecretPromptOutcome { .entered(secret) }
}
