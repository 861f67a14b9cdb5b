import Foundation
import TestSupport
import Testing

@testable import Keychain

@Suite("Keybag control: passcode, lock, unlock, state")
struct KeybagControlTests {
    @Test("Set, lock, unlock, change and remove the passcode", arguments: Storage.allCases)
    func passcodeLifecycle(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        #expect(try summary(keychain.keybagState()) == [false, false])
        try keychain.set("s", for: "k")
        try keychain.setPasscode("1111")
        #expect(try summary(keychain.keybagState()) == [true, false])
        #expect(keychainError { try keychain.setPasscode("2222") } == .param)
        try keychain.lock()
        #expect(try keychain.keybagState().isLocked)
        #expect(keychainError { try keychain.get("k") } == .interactionNotAllowed)
        try keychain.unlock(passcode: "1111")
        #expect(try keychain.get("k") == "s")

        try keychain.changePasscode(from: "1111", to: "2222")
        try keychain.lock()
        #expect(keychainError { try keychain.unlock(passcode: "1111") } == .authFailed)
        try keychain.unlock(passcode: "2222")
        #expect(try keychain.get("k") == "s")

        try keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("p", for: "passcode-only")
        #expect(keychainError { try keychain.removePasscode("1111") } == .authFailed)
        try keychain.removePasscode("2222")
        #expect(try summary(keychain.keybagState()) == [false, false])
        #expect(try keychain.get("passcode-only") == nil)
        #expect(try keychain.get("k") == "s")
    }

    @Test("Protection classes follow the lock state")
    func classesFollowLockState() throws {
        let keychain = try TestKeychain().keychain
        try keychain.accessibility(.always).set("a", for: "always")
        try keychain.accessibility(.afterFirstUnlock).set("c", for: "after-first")
        try keychain.set("w", for: "unlocked")
        try keychain.setPasscode("1234")
        try keychain.lock()
        #expect(try keychain.get("always") == "a")
        #expect(try keychain.get("after-first") == "c")
        #expect(keychainError { try keychain.get("unlocked") } == .interactionNotAllowed)
    }

    @Test("Values on one directory share the lock state; a new process starts locked")
    func sharedState() throws {
        let fixture = try TestKeychain()
        try fixture.keychain.set("s", for: "k")
        try fixture.keychain.setPasscode("1234")
        let other = try fixture.reopened(service: "api")
        try other.lock()
        #expect(try fixture.keychain.keybagState().isLocked)
        #expect(keychainError { try fixture.keychain.get("k") } == .interactionNotAllowed)
        try other.unlock(passcode: "1234")
        #expect(try fixture.keychain.get("k") == "s")
        #expect(fixture.keychain.connection === other.connection)
    }

    /// Issue 20, item 7: the lock state is the process's, not a value's.
    @Test("The lock state outlives the values: after the last one is gone, a new value finds the keychain unlocked")
    func lockStateOutlivesValues() throws {
        let directory = try TemporaryDirectory()
        let identity = try appIdentity()
        func open() -> Keychain {
            Keychain(service: "api", directory: directory.keychain, identity: identity, passcodeHashing: .minimum)
        }
        weak var first: Connection?
        do {
            let keychain = open()
            first = keychain.connection
            try keychain.set("s", for: "k")
            try keychain.setPasscode("1234")
            #expect(try !keychain.keybagState().isLocked)
        }
        #expect(first == nil)
        let reopened = open()
        #expect(try !reopened.keybagState().isLocked)
        #expect(try reopened.get("k") == "s")
        try reopened.lock()
        #expect(keychainError { try open().get("k") } == .interactionNotAllowed)
        try open().unlock(passcode: "1234")
        #expect(try open().get("k") == "s")
    }

    @Test("Async keybag control gives the same results")
    func asyncVariants() async throws {
        let keychain = try TestKeychain().keychain
        try await keychain.set("s", for: "k")
        try await keychain.setPasscode("1234")
        try await keychain.lock()
        #expect(try await keychain.keybagState().isLocked)
        await #expect(throws: KeychainError.interactionNotAllowed) { try await keychain.get("k") }
        await #expect(throws: KeychainError.authFailed) { try await keychain.unlock(passcode: "nope") }
        try await keychain.unlock(passcode: "1234")
        try await keychain.changePasscode(from: "1234", to: "5678")
        try await keychain.removePasscode("5678")
        #expect(try await keychain.keybagState().hasPasscode == false)
        #expect(try await keychain.get("k") == "s")
    }

    /// Whether a keybag state has a passcode, and is locked.
    private func summary(_ state: KeybagState) -> [Bool] { [state.hasPasscode, state.isLocked] }
}
