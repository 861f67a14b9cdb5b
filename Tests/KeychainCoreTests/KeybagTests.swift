import Foundation
import Testing

@testable import KeychainCore

@Suite("Keybag and lock state")
struct KeybagTests {
    private let everyClass = ProtectionClass.allCases

    /// Adds one item per protection class (akpu only when a passcode is set).
    private func addOnePerClass(_ engine: Engine) throws {
        for protectionClass in everyClass {
            if protectionClass == .whenPasscodeSetThisDeviceOnly, try !engine.keybagStatus().hasPasscode { continue }
            try engine.addPassword(
                protectionClass.rawValue, "secret-\(protectionClass.rawValue)",
                [
                    .accessible: .string(protectionClass.rawValue)
                ])
        }
    }

    private func readable(_ engine: Engine) -> Set<ProtectionClass> {
        Set(everyClass.filter { (try? engine.password($0.rawValue)) == "secret-\($0.rawValue)" })
    }

    @Test("Without a passcode every class is available from open, and akpu is refused")
    func noPasscode() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        let keybag = try engine.keybagStatus()
        #expect(!keybag.hasPasscode && !keybag.isLocked)
        try addOnePerClass(engine)
        #expect(readable(engine) == Set(everyClass).subtracting([.whenPasscodeSetThisDeviceOnly]))
        #expect(
            status { try engine.addPassword("p", "x", [.accessible: .string("akpu")]) } == .authFailed)
        engine.lock()
        #expect(readable(try keychain.reopen()) == readable(engine))
        #expect(readable(engine).count == 6)
    }

    @Test("Lock semantics for every protection class")
    func lockSemantics() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try addOnePerClass(keychain.engine)
        #expect(readable(keychain.engine) == Set(everyClass))

        // A fresh open starts locked: only the device-key classes are there.
        let reopened = try keychain.reopen()
        #expect(try reopened.keybagStatus().isLocked)
        #expect(readable(reopened) == [.always, .alwaysThisDeviceOnly])
        #expect(
            status { _ = try reopened.password(ProtectionClass.afterFirstUnlock.rawValue) } == .interactionNotAllowed)

        try reopened.unlock(passcode: "1234")
        #expect(readable(reopened) == Set(everyClass))

        // After a lock, ck and cku stay (first unlock happened); ak, aku and akpu go.
        reopened.lock()
        #expect(
            readable(reopened) == [.always, .alwaysThisDeviceOnly, .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly])
        #expect(try reopened.keybagStatus().hasBeenUnlocked)
        for locked in [ProtectionClass.whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly] {
            #expect(!reopened.isAvailable(locked))
            #expect(status { _ = try reopened.password(locked.rawValue) } == .interactionNotAllowed)
            // Adding, even a duplicate, needs the class key.
            #expect(
                status {
                    try reopened.addPassword("new-\(locked.rawValue)", "x", [.accessible: .string(locked.rawValue)])
                }
                    == .interactionNotAllowed)
            #expect(
                status { try reopened.addPassword(locked.rawValue, "x", [.accessible: .string(locked.rawValue)]) }
                    == .interactionNotAllowed)
        }
        // A device-key class still detects duplicates while locked.
        #expect(
            status { try reopened.addPassword("dk", "x", [.accessible: .string("dk")]) } == .duplicateItem)
    }

    @Test("Update and delete touching a locked item fail without changing anything")
    func lockedWrites() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.addPassword("a", "one", [.accessible: .string("ak")])
        try keychain.engine.addPassword("b", "two", [.accessible: .string("dk")])
        keychain.engine.lock()
        let everything = ItemQuery(itemClass: .genericPassword)
        #expect(
            status { _ = try keychain.engine.update(everything, with: ItemChanges(data: Data("x".utf8)), for: app) }
                == .interactionNotAllowed)
        #expect(status { _ = try keychain.engine.delete(everything, for: app) } == .interactionNotAllowed)
        #expect(
            status {
                _ = try keychain.engine.copyMatching(ItemQuery(itemClass: .genericPassword, limit: .all), for: app)
            }
                == .interactionNotAllowed)
        try keychain.engine.unlock(passcode: "1234")
        #expect(try keychain.engine.password("a") == "one")
        #expect(try keychain.engine.password("b") == "two")
    }

    @Test("Changing the passcode rewraps class keys; the old passcode stops working")
    func changePasscode() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("old", current: nil)
        try keychain.engine.addPassword("a", "kept")
        #expect(status { try keychain.engine.setPasscode("new", current: "wrong") } == .authFailed)
        #expect(status { try keychain.engine.setPasscode("new", current: nil) } == .authFailed)
        #expect(status { try keychain.engine.setPasscode("", current: "old") } == .param)
        try keychain.engine.setPasscode("new", current: "old")
        let reopened = try keychain.reopen()
        #expect(status { try reopened.unlock(passcode: "old") } == .authFailed)
        try reopened.unlock(passcode: "new")
        #expect(try reopened.password("a") == "kept")
    }

    @Test("Removing the passcode deletes akpu items and opens everything")
    func removePasscode() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try addOnePerClass(keychain.engine)
        #expect(status { try keychain.engine.removePasscode(current: "0000") } == .authFailed)
        try keychain.engine.removePasscode(current: "1234")
        #expect(status { _ = try keychain.engine.password("akpu") } == .itemNotFound)
        let reopened = try keychain.reopen()
        #expect(try !reopened.keybagStatus().isLocked)
        #expect(readable(reopened) == Set(everyClass).subtracting([.whenPasscodeSetThisDeviceOnly]))
        #expect(status { try reopened.removePasscode(current: "1234") } == .param)
    }

    @Test("Wrong passcodes bring escalating waits that survive a reopen")
    func wrongPasscodeWaits() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        let engine = try keychain.reopen()
        for _ in 1...4 {
            #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)
        }
        #expect(try engine.keybagStatus().retryAfter == nil)
        #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)  // the 5th: a 1-minute wait
        #expect(try engine.keybagStatus().failedAttempts == 5)

        // A restart does not reset the wait, and even the right passcode waits.
        let restarted = try keychain.reopen()
        let status5 = try restarted.keybagStatus()
        #expect(status5.failedAttempts == 5)
        #expect(status5.retryAfter == keychain.clock.now.addingTimeInterval(60))
        #expect(status { try restarted.unlock(passcode: "1234") } == .interactionNotAllowed)

        keychain.clock.advance(by: 61)
        #expect(status { try restarted.unlock(passcode: "0000") } == .authFailed)  // the 6th: 5 minutes
        #expect(try restarted.keybagStatus().retryAfter == keychain.clock.now.addingTimeInterval(300))
        keychain.clock.advance(by: 299)
        #expect(status { try restarted.unlock(passcode: "1234") } == .interactionNotAllowed)
        keychain.clock.advance(by: 2)
        try restarted.unlock(passcode: "1234")
        #expect(try restarted.keybagStatus().failedAttempts == 0)
        #expect(try keychain.reopen().keybagStatus().failedAttempts == 0)
    }

    @Test("The wait schedule is 1, 5, 15, then 60 minutes")
    func waitSchedule() {
        #expect((1...4).map(PasscodePolicy.wait(afterFailures:)) == [0, 0, 0, 0])
        #expect((5...9).map(PasscodePolicy.wait(afterFailures:)) == [60, 300, 900, 3600, 3600])
    }

    @Test("Erase after N failures, when enabled, wipes items and the passcode")
    func eraseAfterFailures() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        try engine.setPasscode("1234", current: nil)
        try engine.addPassword("a", "doomed", [.accessible: .string("dk")])
        #expect(status { try engine.setEraseAfter(failures: 3) } == .param)
        try engine.setEraseAfter(failures: 6)
        #expect(try engine.keybagStatus().eraseAfter == 6)
        for attempt in 1...6 {
            #expect(status { try engine.unlock(passcode: "bad") } == .authFailed)
            if attempt >= 5 && attempt < 6 { keychain.clock.advance(by: 3600) }
        }
        let erased = try keychain.reopen()
        #expect(try !erased.keybagStatus().hasPasscode)
        #expect(status { _ = try erased.password("a") } == .itemNotFound)
        #expect(status { _ = try engine.password("a") } == .itemNotFound)
        try erased.addPassword("fresh", "start")
        #expect(try erased.password("fresh") == "start")
    }

    @Test("The keybag identifier is stable across reopening")
    func keybagIdentity() throws {
        let keychain = try TestKeychain()
        #expect(try keychain.engine.keybagStatus().keybagID == keychain.reopen().keybagStatus().keybagID)
        let other = try TestKeychain()
        #expect(try keychain.engine.keybagStatus().keybagID != other.engine.keybagStatus().keybagID)
    }
}
