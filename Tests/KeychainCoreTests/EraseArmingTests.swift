import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Arming the erase after wrong passcodes (issue 20, item 1): only the passcode's holder (or, through keychaind,
/// root) may set, raise or lower the threshold; otherwise any program could arm it and then erase every app's
/// items with wrong passcodes, which count from any program.
@Suite("Arming the erase needs the passcode", .timeLimit(.minutes(2)))
struct EraseArmingTests {
    @Test("Embedded: without the passcode the threshold is refused, naming it, and wrong passcodes erase nothing")
    func embedded() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        try engine.setPasscode("1234", current: nil)
        try engine.addPassword("kept", "secret", [.accessible: .string("dk")])
        var refusal: EngineError?
        do { try engine.setEraseAfter(failures: 6, passcode: nil) } catch { refusal = error }
        #expect(refusal?.code == .authFailed)
        #expect(
            refusal?.message.contains("needs the keychain's current passcode") == true, "\(String(describing: refusal))"
        )
        #expect(try engine.keybagStatus().eraseAfter == nil)
        // Wrong passcodes still count: six of them leave the items, as no threshold was armed.
        for attempt in 1...6 {
            #expect(status { try engine.unlock(passcode: "bad") } == .authFailed)
            if attempt == 5 { keychain.clock.advance(by: 3600) }
        }
        keychain.clock.advance(by: 3600)
        try engine.unlock(passcode: "1234")
        #expect(try engine.password("kept") == "secret")
    }

    @Test(
        "Through the deployed keychaind, an unregistered program cannot arm the erase, so its wrong passcodes leave a registered app's items; the passcode or root can",
        .enabled(if: Wall.canCreateUsers, Wall.needsRoot))
    func unregisteredProgramCannotArm() throws {
        let lab = try WallLab(readsClockFile: true)
        let clock = TestClock(file: lab.daemon.clockFile)
        let user = try TestUser()
        let group = try TestGroup()
        let app = try lab.install("app", setgid: group)
        let plain = try lab.install("plain")
        try lab.register(app, identifier: "TEAMA.com.example.a", groups: ["TEAMA.com.example.a"])
        let owner = DaemonClient(socketPath: lab.daemon.socketPath, user: user.uid)
        try owner.setPasscode("1234", current: nil)
        let added = try lab.line(app, as: user, ["add", "of-a", "secret-a"])
        #expect(added.code == nil, "\(added.message ?? "")")

        // The attack: arm the erase at six, then six wrong passcodes.
        let armed = try lab.line(plain, as: user, ["erase-after", "6"])
        #expect(armed.code == .authFailed, "the unregistered program armed the erase")
        #expect(armed.message?.contains("passcode") == true, "\(armed.message ?? "")")
        #expect(try owner.keybagStatus().eraseAfter == nil)
        for attempt in 1...6 {
            #expect(try lab.line(plain, as: user, ["unlock", "bad"]).code == .authFailed)
            if attempt == 5 { clock.advance(by: 3600) }
        }
        let status = try owner.keybagStatus()
        #expect(status.hasPasscode && status.failedAttempts == 6, "wrong passcodes count as before")
        clock.advance(by: 3600)
        #expect(try lab.line(plain, as: user, ["unlock", "1234"]).code == nil)
        #expect(try lab.line(app, as: user, ["get", "of-a"]).secret == "secret-a", "the app's item survives")

        // A wrong passcode offered with the threshold is refused and counted, the right one arms it.
        #expect(try lab.line(plain, as: user, ["erase-after", "6", "bad"]).code == .authFailed)
        #expect(try owner.keybagStatus().failedAttempts == 1)
        #expect(try lab.line(plain, as: user, ["erase-after", "7", "1234"]).code == nil)
        #expect(try owner.keybagStatus().eraseAfter == 7)
        // Root owns the keychains the daemon keeps: it needs no passcode.
        try owner.setEraseAfter(failures: 0, passcode: Passcode?.none)
        #expect(try owner.keybagStatus().eraseAfter == nil)
    }
}
