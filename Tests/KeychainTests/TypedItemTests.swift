import Foundation
import Testing

@testable import Keychain

@Suite("Typed items: generic and internet passwords with all their attributes")
struct TypedItemTests {
    private func fullGenericPassword() -> GenericPassword {
        var item = GenericPassword(
            account: "alice", service: "mail", accessGroup: "TEAM.shared", accessibility: .afterFirstUnlock,
            isSynchronizable: true, label: "Mail", generic: Data([1, 2, 3]))
        item.itemDescription = "password"
        item.comment = "rotated monthly"
        item.creator = 0x6170_706C
        item.type = 0x7077_6420
        item.isInvisible = true
        item.isNegative = true
        return item
    }

    private func fullInternetPassword() -> InternetPassword {
        var item = InternetPassword(
            account: "bob", server: "example.com", protocol: .https, authenticationType: .htmlForm, port: 8443,
            path: "/login", securityDomain: "realm", accessibility: .whenUnlockedThisDeviceOnly, label: "Example")
        item.comment = "work"
        return item
    }

    @Test("Every attribute of a generic password round-trips", arguments: Storage.allCases)
    func genericRoundTrip(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        let item = fullGenericPassword()
        let stored = try keychain.add(item, secret: Data("pw".utf8))
        #expect(stored.persistentReference?.count == 20)
        #expect(stored.creationDate != nil && stored.modificationDate != nil)
        var expected = item
        expected.creationDate = stored.creationDate
        expected.modificationDate = stored.modificationDate
        expected.persistentReference = stored.persistentReference
        #expect(stored == expected)
        let listed = try keychain.items(matching: GenericPassword.Query(service: "mail", synchronizable: true))
        #expect(listed == [stored])
        #expect(try keychain.secret(for: item) == Data("pw".utf8))
        #expect(try keychain.secret(for: stored) == Data("pw".utf8))
    }

    @Test("Every attribute of an internet password round-trips", arguments: Storage.allCases)
    func internetRoundTrip(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        let stored = try keychain.add(fullInternetPassword(), secret: Data("pw".utf8))
        #expect(stored.accessGroup == "TEAM.com.example.app")
        #expect(stored.protocol == .https && stored.authenticationType == .htmlForm && stored.port == 8443)
        #expect(stored.path == "/login" && stored.securityDomain == "realm" && stored.comment == "work")
        #expect(stored.accessibility == .whenUnlockedThisDeviceOnly && stored.label == "Example")
        #expect(try keychain.items(matching: InternetPassword.Query(server: "example.com")) == [stored])
        #expect(try keychain.items(matching: InternetPassword.Query(protocol: .http)).isEmpty)
        #expect(try keychain.secret(for: fullInternetPassword()) == Data("pw".utf8))
    }

    @Test("A protocol code this API does not name reads back exactly")
    func unknownCodes() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let item = InternetPassword(
            account: "a", server: "s", protocol: InternetProtocol(rawValue: "zzzz"),
            authenticationType: AuthenticationType(rawValue: "yyyy"))
        let stored = try keychain.add(item, secret: Data())
        #expect(stored.protocol?.rawValue == "zzzz" && stored.authenticationType?.rawValue == "yyyy")
    }

    @Test("The same key twice is a duplicate; absent key attributes count as empty")
    func duplicates() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try keychain.add(GenericPassword(account: "a", service: "s"), secret: Data())
        let error = try #require(
            keychainError { try keychain.add(GenericPassword(account: "a", service: "s", label: "x"), secret: Data()) })
        #expect(error == .duplicateItem && error.message.contains("\"a\""))
        try keychain.add(InternetPassword(account: "a", server: "s"), secret: Data())
        #expect(
            keychainError {
                try keychain.add(InternetPassword(account: "a", server: "s", port: nil, path: nil), secret: Data())
            } == .duplicateItem)
        try keychain.add(InternetPassword(account: "a", server: "s", port: 22), secret: Data())
        #expect(try keychain.items(matching: InternetPassword.Query(account: "a")).count == 2)
    }

    @Test("update writes every attribute, clears unset ones, and can change the secret", arguments: Storage.allCases)
    func update(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        let stored = try keychain.add(fullGenericPassword(), secret: Data("old".utf8))
        var edited = stored
        edited.label = nil
        edited.comment = "new comment"
        edited.generic = nil
        edited.creator = nil
        edited.isInvisible = false
        let updated = try keychain.update(edited, secret: Data("new".utf8))
        #expect(updated.label == nil && updated.comment == "new comment" && updated.generic == nil)
        #expect(updated.creator == nil && !updated.isInvisible && updated.isNegative)
        #expect(updated.persistentReference == stored.persistentReference)
        #expect(try #require(updated.modificationDate) >= #require(stored.modificationDate))
        #expect(try keychain.secret(for: updated) == Data("new".utf8))
        let again = try keychain.update(updated)
        var expected = updated
        expected.modificationDate = again.modificationDate
        #expect(again == expected)
        #expect(try keychain.secret(for: updated) == Data("new".utf8))
    }

    @Test("An item read back is found by its persistent reference, even after its key is edited")
    func persistentReference() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let stored = try keychain.add(GenericPassword(account: "old", service: "s"), secret: Data("pw".utf8))
        var renamed = stored
        renamed.account = "new"
        let moved = try keychain.update(renamed)
        #expect(moved.account == "new" && moved.persistentReference == stored.persistentReference)
        #expect(try keychain.items(matching: GenericPassword.Query(service: "s")).map(\.account) == ["new"])
        #expect(try keychain.remove(stored))
        #expect(try !keychain.remove(stored))
        #expect(try keychain.secret(for: stored) == nil)
        #expect(keychainError { try keychain.update(stored) } == .itemNotFound)
    }

    @Test("A forged persistent reference is a parameter error")
    func forgedReference() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let stored = try keychain.add(GenericPassword(account: "a", service: "s"), secret: Data())
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(stored)) as? [String: Any] ?? [:]
        json["persistentReference"] = Data([1, 2, 3]).base64EncodedString()
        let forged = try JSONDecoder().decode(GenericPassword.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(keychainError { try keychain.secret(for: forged) } == .param)
    }

    @Test("Listing matches by every attribute given and returns attributes only")
    func listing() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try keychain.add(GenericPassword(account: "a", service: "s1", label: "L"), secret: Data("1".utf8))
        try keychain.add(GenericPassword(account: "b", service: "s1"), secret: Data("2".utf8))
        try keychain.add(
            GenericPassword(account: "c", service: "s2", accessibility: .always), secret: Data("3".utf8))
        try keychain.add(GenericPassword(account: "d", service: "s2", isSynchronizable: true), secret: Data("4".utf8))
        func accounts(_ query: GenericPassword.Query) throws -> [String] {
            try keychain.items(matching: query).map(\.account).sorted()
        }
        #expect(try accounts(GenericPassword.Query()) == ["a", "b", "c"])
        #expect(try accounts(GenericPassword.Query(synchronizable: nil)) == ["a", "b", "c", "d"])
        #expect(try accounts(GenericPassword.Query(synchronizable: true)) == ["d"])
        #expect(try accounts(GenericPassword.Query(service: "s1")) == ["a", "b"])
        #expect(try accounts(GenericPassword.Query(label: "L")) == ["a"])
        #expect(try accounts(GenericPassword.Query(accessibility: .always)) == ["c"])
        #expect(try accounts(GenericPassword.Query(account: "zzz")).isEmpty)
        #expect(try keychain.items(matching: InternetPassword.Query()).isEmpty)
    }

    @Test("Items are Codable, for caching attributes")
    func codable() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let stored = try keychain.add(fullInternetPassword(), secret: Data())
        let decoded = try JSONDecoder().decode(InternetPassword.self, from: JSONEncoder().encode(stored))
        #expect(decoded == stored)
        #expect(try keychain.secret(for: decoded) == Data())
    }
}
