import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// The seed's access-control recipe (seeds/004), its own code in a process of its own (`seed004-probe`), read back
/// at a pseudo-terminal as on iOS it "triggers a biometric or passcode prompt": the keychain passcode typed at the
/// terminal returns the token; a wrong one is errSecAuthFailed; Control-C is errSecUserCanceled; without a terminal
/// (and no pinentry) errSecInteractionNotAllowed; kSecUseAuthenticationUISkip leaves the item out.
@Suite struct SeedAccessControlTerminalTests {
    private let directory: TemporaryDirectory
    private let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory()
        let engine = try Engine(
            storage: .directory(directory.keychain), options: EngineOptions(passcodeCost: .minimum))
        try engine.setPasscode("2468", current: nil)
        // No pinentry can be found: without a terminal there is no way to ask.
        environment = [
            "KEYCHAIN_HOME": directory.keychain.path, "KEYCHAIN_DAEMON": "off", "PATH": "/nonexistent",
            "SWIFT_BACKTRACE": "enable=no", "HOME": directory.url.path, "SEED_UNLOCK_PASSCODE": "2468",
        ]
        let added = try run(["add", "carol", "seed-token"])
        try #require(added.hasPrefix("added: ok"), "the seed's add failed: \(added)")
    }

    /// Runs the probe without a terminal and returns its line.
    private func run(_ arguments: [String]) throws -> String {
        let process = try SpawnedProcess(BuiltExecutable.named("seed004-probe"), arguments, environment: environment)
        _ = process.wait()
        return process.readOutput().trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the seed's retrieveToken at a terminal, types `keys` at its prompt, and returns its line.
    private func readAtTerminal(typing keys: [UInt8]) throws -> (line: String, screen: String) {
        let terminal = try PseudoTerminal()
        let process = try SpawnedProcess(
            BuiltExecutable.named("seed004-probe"), ["read", "carol"], environment: environment, terminal: terminal)
        try #require(
            terminal.read(until: "Keychain passcode: "), "no prompt; the screen shows: \(terminal.transcriptText)")
        try terminal.type(keys)
        _ = process.wait()
        terminal.readToEnd(timeout: .seconds(2))
        return (process.readOutput().trimmingCharacters(in: .whitespacesAndNewlines), terminal.transcriptText)
    }

    @Test func thePasscodeTypedAtTheTerminalReturnsTheToken() throws {
        let (line, screen) = try readAtTerminal(typing: Array("2468\r".utf8))
        #expect(line.hasPrefix("token: seed-token"), "\(line)")
        #expect(!screen.contains("2468"), "the passcode was echoed")
        #expect(screen.contains("seed004-probe"))
    }

    @Test func aWrongPasscodeIsAuthFailed() throws {
        let (line, _) = try readAtTerminal(typing: Array("0000\r".utf8))
        #expect(line.hasPrefix("token: nil"))
        #expect(line.contains("-25293"), "\(line)")
    }

    @Test func controlCIsUserCanceled() throws {
        let (line, _) = try readAtTerminal(typing: [0x03])
        #expect(line.hasPrefix("token: nil"))
        #expect(line.contains("-128"), "\(line)")
    }

    @Test func withoutATerminalItIsInteractionNotAllowed() throws {
        let line = try run(["read", "carol"])
        #expect(line.hasPrefix("token: nil"))
        #expect(line.contains("-25308"), "\(line)")
    }

    @Test func authenticationUISkipLeavesTheItemOut() throws {
        #expect(try run(["read-skip", "carol"]) == "status: -25300")
    }
}
