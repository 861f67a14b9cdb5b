import Foundation
import Testing

@testable import Keychain

@Suite("Accessibility migration: atomic, never delete-and-add")
struct MigrationTests {
    /// The accessibility of every generic password of service "api", by account (local and synchronizable).
    private func classes(_ keychain: Keychain) throws -> [String: Accessibility] {
        let items = try keychain.items(matching: GenericPassword.Query(service: "api", synchronizable: nil))
        return Dictionary(uniqueKeysWithValues: items.map { ($0.account, $0.accessibility) })
    }

    @Test("Migration moves every item to the new class, secrets intact", arguments: Storage.allCases)
    func migrates(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        for key in ["a", "b", "c"] { try keychain.set("secret-\(key)", for: key) }
        try keychain.service("other").set("untouched", for: "x")
        #expect(try keychain.migrateAccessibility(to: .afterFirstUnlock) == 3)
        #expect(try classes(keychain) == ["a": .afterFirstUnlock, "b": .afterFirstUnlock, "c": .afterFirstUnlock])
        #expect(
            try keychain.service("other").items(matching: .init(service: "other")).map(\.accessibility) == [
                .whenUnlocked
            ])
        try keychain.setPasscode("1234")
        try keychain.lock()
        #expect(try keychain.get("b") == "secret-b")
        #expect(try keychain.accessibility(.afterFirstUnlock).migrateAccessibility(to: .always) == 3)
        #expect(try keychain.service("nothing").migrateAccessibility(to: .always) == 0)
    }

    @Test("A migration that fails part-way moves nothing")
    func failsPartWay() throws {
        let keychain = try TestKeychain().keychain
        try keychain.set("1", for: "local-1")
        try keychain.set("2", for: "local-2")
        try keychain.synchronizable(true).set("3", for: "synced")
        // The local items can move to a this-device-only class; the synchronizable one, matched last, cannot.
        let error = try #require(
            keychainError {
                try keychain.migrateAccessibility(
                    of: GenericPassword.Query(service: "api", synchronizable: nil), to: .afterFirstUnlockThisDeviceOnly)
            })
        #expect(error == .param && error.message.contains("synchronizable"))
        #expect(try classes(keychain) == ["local-1": .whenUnlocked, "local-2": .whenUnlocked, "synced": .whenUnlocked])
        #expect(try keychain.get("local-2") == "2")
    }

    @Test("A migration into a locked class moves nothing")
    func lockedTarget() throws {
        let keychain = try TestKeychain().keychain.accessibility(.always)
        for key in ["a", "b"] { try keychain.set(key, for: key) }
        try keychain.setPasscode("1234")
        try keychain.lock()
        let error = try #require(keychainError { try keychain.migrateAccessibility(to: .whenUnlocked) })
        #expect(error == .interactionNotAllowed && error.message.contains("ak"))
        #expect(try classes(keychain) == ["a": .always, "b": .always])
        try keychain.unlock(passcode: "1234")
        #expect(try keychain.migrateAccessibility(to: .whenUnlocked) == 2)
    }

    @Test("A migration that touches a locked item moves nothing")
    func lockedSource() throws {
        let keychain = try TestKeychain().keychain
        try keychain.accessibility(.always).set("a", for: "always")
        try keychain.set("w", for: "when-unlocked")
        try keychain.setPasscode("1234")
        try keychain.lock()
        #expect(
            keychainError { try keychain.migrateAccessibility(to: .alwaysThisDeviceOnly) } == .interactionNotAllowed)
        try keychain.unlock(passcode: "1234")
        #expect(try classes(keychain) == ["always": .always, "when-unlocked": .whenUnlocked])
    }

    @Test("set with another accessibility moves the item in place; while its class is locked it throws and keeps it")
    func setMovesInPlace() throws {
        let keychain = try TestKeychain().keychain
        try keychain.set("v1", for: "k")
        let reference = try #require(keychain.items(matching: .init(account: "k")).first?.persistentReference)
        try keychain.accessibility(.afterFirstUnlock).set("v2", for: "k")
        let moved = try #require(keychain.items(matching: .init(account: "k")).first)
        #expect(moved.accessibility == .afterFirstUnlock && moved.persistentReference == reference)
        try keychain.setPasscode("1234")
        try keychain.set("v3", for: "k")
        try keychain.lock()
        #expect(keychainError { try keychain.accessibility(.always).set("v4", for: "k") } == .interactionNotAllowed)
        try keychain.unlock(passcode: "1234")
        #expect(try keychain.get("k") == "v3")
        #expect(try classes(keychain) == ["k": .whenUnlocked])
    }

    @Test("Internet passwords migrate by query, and the async variant agrees")
    func internetPasswords() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try await keychain.add(InternetPassword(account: "a", server: "one"), secret: Data())
        try await keychain.add(InternetPassword(account: "b", server: "two"), secret: Data())
        #expect(try await keychain.migrateAccessibility(of: InternetPassword.Query(server: "one"), to: .always) == 1)
        let items = try await keychain.items(matching: InternetPassword.Query())
        #expect(
            Dictionary(uniqueKeysWithValues: items.map { ($0.server, $0.accessibility) }) == [
                "one": .always, "two": .whenUnlocked,
            ])
    }
}
