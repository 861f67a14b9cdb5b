import Foundation
import Testing

@testable import KeychainCore

/// Passcodes and lock states, which every ``KeychainBackend`` must keep (the conformance suite, keybag part). The
/// parts about a fresh open (its lock state, what survives a restart) run on the kinds that can reopen.
@Suite("Backend conformance: keybag and lock state")
struct KeybagConformanceTests {
    private static let everyClass = ProtectionClass.allCases

    /// Adds one item per protection class (akpu only when a passcode is set).
    private func addOnePerClass(_ backend: any KeychainBackend) throws {
        for protectionClass in Self.everyClass {
            if protectionClass == .whenPasscodeSetThisDeviceOnly, try !backend.keybagStatus().hasPasscode { continue }
            try backend.addPassword(
                protectionClass.rawValue, "secret-\(protectionClass.rawValue)",
                [.accessible: .string(protectionClass.rawValue)])
        }
    }

    private func readable(_ backend: any KeychainBackend) -> Set<ProtectionClass> {
        Set(Self.everyClass.filter { (try? backend.password($0.rawValue)) == "secret-\($0.rawValue)" })
    }

    @Test("Without a passcode every class is available from open, and akpu is refused", arguments: BackendFactory.all)
    func noPasscode(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        let keybag = try backend.keybagStatus()
        #expect(!keybag.hasPasscode && !keybag.isLocked)
        try addOnePerClass(backend)
        #expect(readable(backend) == Set(Self.everyClass).subtracting([.whenPasscodeSetThisDeviceOnly]))
        #expect(status { try backend.addPassword("p", "x", [.accessible: .string("akpu")]) } == .authFailed)
        try backend.lock()
        #expect(readable(backend).count == 6)
        if let reopened = try keychain.reopen?() { #expect(readable(reopened) == readable(backend)) }
    }

    @Test("Lock semantics for every protection class", arguments: BackendFactory.all)
    func lockSemantics(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        try keychain.backend.setPasscode("1234", current: nil)
        try addOnePerClass(keychain.backend)
        #expect(readable(keychain.backend) == Set(Self.everyClass))

        // A fresh open starts locked: only the device-key classes are there.
        let backend: any KeychainBackend
        if let reopened = try keychain.reopen?() {
            #expect(try reopened.keybagStatus().isLocked && !reopened.keybagStatus().hasBeenUnlocked)
            #expect(readable(reopened) == [.always, .alwaysThisDeviceOnly])
            #expect(
                status { _ = try reopened.password(ProtectionClass.afterFirstUnlock.rawValue) }
                    == .interactionNotAllowed)
            #expect(!reopened.canOpenFiles(of: .classC))
            try reopened.unlock(passcode: "1234")
            #expect(readable(reopened) == Set(Self.everyClass))
            backend = reopened
        } else {
            backend = keychain.backend
        }

        // After a lock, ck and cku stay (first unlock happened); ak, aku and akpu go.
        try backend.lock()
        #expect(
            readable(backend) == [.always, .alwaysThisDeviceOnly, .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly])
        #expect(try backend.keybagStatus().hasBeenUnlocked && backend.keybagStatus().isLocked)
        for locked in [ProtectionClass.whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly] {
            #expect(status { _ = try backend.password(locked.rawValue) } == .interactionNotAllowed)
            // Adding, even a duplicate, needs the class key.
            #expect(
                status {
                    try backend.addPassword("new-\(locked.rawValue)", "x", [.accessible: .string(locked.rawValue)])
                }
                    == .interactionNotAllowed)
            #expect(
                status { try backend.addPassword(locked.rawValue, "x", [.accessible: .string(locked.rawValue)]) }
                    == .interactionNotAllowed)
        }
        // A device-key class still detects duplicates while locked.
        #expect(status { try backend.addPassword("dk", "x", [.accessible: .string("dk")]) } == .duplicateItem)
    }

    @Test("Update and delete touching a locked item fail without changing anything", arguments: BackendFactory.all)
    func lockedWrites(_ factory: BackendFactory) throws {
        let backend = try factory.open().backend
        try backend.setPasscode("1234", current: nil)
        try backend.addPassword("a", "one", [.accessible: .string("ak")])
        try backend.addPassword("b", "two", [.accessible: .string("dk")])
        try backend.lock()
        let everything = ItemQuery(itemClass: .genericPassword)
        #expect(
            status { _ = try backend.update(everything, with: ItemChanges(data: Data("x".utf8)), for: app) }
                == .interactionNotAllowed)
        #expect(status { _ = try backend.delete(everything, for: app) } == .interactionNotAllowed)
        #expect(
            status { _ = try backend.copyMatching(ItemQuery(itemClass: .genericPassword, limit: .all), for: app) }
                == .interactionNotAllowed)
        try backend.unlock(passcode: "1234")
        #expect(try backend.password("a") == "one")
        #expect(try backend.password("b") == "two")
    }

    @Test("Changing the passcode rewraps class keys; the old passcode stops working", arguments: BackendFactory.all)
    func changePasscode(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        try backend.setPasscode("old", current: nil)
        try backend.addPassword("a", "kept")
        #expect(status { try backend.setPasscode("new", current: "wrong") } == .authFailed)
        #expect(status { try backend.setPasscode("new", current: nil) } == .authFailed)
        #expect(status { try backend.setPasscode("", current: "old") } == .param)
        try backend.setPasscode("new", current: "old")
        let later = try keychain.reopen?() ?? backend
        try later.lock()
        #expect(status { try later.unlock(passcode: "old") } == .authFailed)
        try later.unlock(passcode: "new")
        #expect(try later.password("a") == "kept")
    }

    @Test("Removing the passcode deletes akpu items and opens everything", arguments: BackendFactory.all)
    func removePasscode(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        try keychain.backend.setPasscode("1234", current: nil)
        try addOnePerClass(keychain.backend)
        #expect(status { try keychain.backend.removePasscode(current: "0000") } == .authFailed)
        try keychain.backend.removePasscode(current: "1234")
        #expect(status { _ = try keychain.backend.password("akpu") } == .itemNotFound)
        let later = try keychain.reopen?() ?? keychain.backend
        try later.lock()
        #expect(try !later.keybagStatus().isLocked)
        #expect(readable(later) == Set(Self.everyClass).subtracting([.whenPasscodeSetThisDeviceOnly]))
        #expect(status { try later.removePasscode(current: "1234") } == .param)
    }

    @Test("Wrong passcodes bring escalating waits (that survive a reopen)", arguments: BackendFactory.all)
    func wrongPasscodeWaits(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let clock = keychain.clock
        try keychain.backend.setPasscode("1234", current: nil)
        let backend = try keychain.reopen?() ?? keychain.backend
        for _ in 1...4 {
            #expect(status { try backend.unlock(passcode: "0000") } == .authFailed)
        }
        #expect(try backend.keybagStatus().retryAfter == nil)
        #expect(status { try backend.unlock(passcode: "0000") } == .authFailed)  // the 5th: a 1-minute wait
        #expect(try backend.keybagStatus().failedAttempts == 5)

        // A restart does not reset the wait, and even the right passcode waits.
        let restarted = try keychain.reopen?() ?? backend
        let status5 = try restarted.keybagStatus()
        #expect(status5.failedAttempts == 5)
        #expect(status5.retryAfter == clock.now.addingTimeInterval(60))
        #expect(status { try restarted.unlock(passcode: "1234") } == .interactionNotAllowed)

        clock.advance(by: 61)
        #expect(status { try restarted.unlock(passcode: "0000") } == .authFailed)  // the 6th: 5 minutes
        #expect(try restarted.keybagStatus().retryAfter == clock.now.addingTimeInterval(300))
        clock.advance(by: 299)
        #expect(status { try restarted.unlock(passcode: "1234") } == .interactionNotAllowed)
        clock.advance(by: 2)
        try restarted.unlock(passcode: "1234")
        #expect(try restarted.keybagStatus().failedAttempts == 0)
        if let reopened = try keychain.reopen?() { #expect(try reopened.keybagStatus().failedAttempts == 0) }
    }

    @Test(
        "Arming, raising or lowering the erase needs the current passcode; a wrong one counts as any wrong passcode",
        arguments: BackendFactory.all)
    func eraseThresholdNeedsThePasscode(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        // No passcode: nothing to prove (and nothing a wrong passcode could erase).
        try backend.setEraseAfter(failures: 8, passcode: Passcode?.none)
        try backend.setPasscode("1234", current: nil)
        try backend.addPassword("a", "kept", [.accessible: .string("dk")])
        for failures in [6, 20, 0] {
            var refusal: EngineError?
            do { try backend.setEraseAfter(failures: failures, passcode: "bad") } catch { refusal = error }
            #expect(refusal?.code == .authFailed && refusal?.message.contains("wrong passcode") == true)
        }
        #expect(try backend.keybagStatus().failedAttempts == 3)
        #expect(try backend.keybagStatus().eraseAfter == 8)
        try backend.setEraseAfter(failures: 6, passcode: "1234")
        #expect(try backend.keybagStatus().eraseAfter == 6)
        #expect(try backend.keybagStatus().failedAttempts == 0, "the right passcode clears the count, as an unlock")
        // Wrong passcodes through it wait as any others do, and erase at the threshold like them.
        for _ in 1...5 { #expect(status { try backend.setEraseAfter(failures: 0, passcode: "bad") } == .authFailed) }
        #expect(status { try backend.setEraseAfter(failures: 0, passcode: "1234") } == .interactionNotAllowed)
        #expect(try backend.keybagStatus().eraseAfter == 6)
        keychain.clock.advance(by: 3600)
        try backend.setEraseAfter(failures: 0, passcode: "1234")
        #expect(try backend.keybagStatus().eraseAfter == nil)
        #expect(try backend.password("a") == "kept")
    }

    @Test("Erase after N failures, when enabled, wipes items and the passcode", arguments: BackendFactory.all)
    func eraseAfterFailures(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        try backend.setPasscode("1234", current: nil)
        try backend.addPassword("a", "doomed", [.accessible: .string("dk")])
        #expect(status { try backend.setEraseAfter(failures: 3, passcode: "1234") } == .param)
        #expect(status { try backend.setEraseAfter(failures: -1, passcode: "1234") } == .param)
        try backend.setEraseAfter(failures: 6, passcode: "1234")
        #expect(try backend.keybagStatus().eraseAfter == 6)
        for attempt in 1...6 {
            #expect(status { try backend.unlock(passcode: "bad") } == .authFailed)
            if attempt == 5 { keychain.clock.advance(by: 3600) }
        }
        #expect(try !backend.keybagStatus().hasPasscode)
        #expect(status { _ = try backend.password("a") } == .itemNotFound)
        if let erased = try keychain.reopen?() {
            #expect(try !erased.keybagStatus().hasPasscode)
            #expect(status { _ = try erased.password("a") } == .itemNotFound)
        }
        try backend.addPassword("fresh", "start")
        #expect(try backend.password("fresh") == "start")
    }

    @Test("The keybag identifier is the keychain's own, stable across reopening", arguments: BackendFactory.all)
    func keybagIdentity(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let identifier = try keychain.backend.keybagStatus().keybagID
        if let reopened = try keychain.reopen?() { #expect(try reopened.keybagStatus().keybagID == identifier) }
        #expect(try factory.open().backend.keybagStatus().keybagID != identifier)
    }
}
