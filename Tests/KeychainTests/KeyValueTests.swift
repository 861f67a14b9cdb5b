import Foundation
import Testing

@testable import Keychain

@Suite("Key-value API: set, get, remove, contains, allKeys, removeAll")
struct KeyValueTests {
    struct Profile: Codable, Equatable {
        var name: String
        var scopes: [String]
        var expiresAt: Date
        var refresh: Data?
        var nested: [String: Int]
    }

    @Test("Strings, data and Codable values round-trip", arguments: Storage.allCases)
    func roundTrips(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        try keychain.set("s3cret ✓", for: "text")
        try keychain.set(Data([0, 1, 2, 255]), for: "bytes")
        let profile = Profile(
            name: "alice", scopes: ["read", "write"], expiresAt: Date(timeIntervalSince1970: 1_900_000_000),
            refresh: Data("r".utf8), nested: ["a": 1])
        try keychain.set(profile, for: "profile")
        try keychain.set([1, 2, 3], for: "numbers")

        #expect(try keychain.get("text") == "s3cret ✓")
        #expect(try keychain.get("bytes", as: Data.self) == Data([0, 1, 2, 255]))
        #expect(try keychain.get("profile", as: Profile.self) == profile)
        #expect(try keychain.get("numbers", as: [Int].self) == [1, 2, 3])
        #expect(try keychain.get("missing") == nil)
        #expect(try keychain.get("missing", as: Profile.self) == nil)
    }

    @Test("Text and data are stored as is, whichever overload stores them")
    func storageFormat() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        func storeGenerically<Value: Encodable>(_ value: Value, _ key: String) throws {
            try keychain.set(value, for: key)
        }
        try storeGenerically("plain", "text")
        try storeGenerically(Data("raw".utf8), "data")
        #expect(try keychain.get("text", as: Data.self) == Data("plain".utf8))
        #expect(try keychain.get("data") == "raw")
        try keychain.set(["k": "v"], for: "json")
        #expect(try keychain.get("json") == #"{"k":"v"}"#)
    }

    @Test("set replaces a value; remove, contains, allKeys and removeAll", arguments: Storage.allCases)
    func lifecycle(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        try keychain.set("one", for: "b")
        try keychain.set("two", for: "b")
        try keychain.set("x", for: "a")
        try keychain.service("other").set("y", for: "c")
        #expect(try keychain.get("b") == "two")
        #expect(try keychain.contains("a"))
        #expect(try !keychain.contains("c"))
        #expect(try keychain.allKeys() == ["a", "b"])
        #expect(try keychain.remove("a"))
        #expect(try !keychain.remove("a"))
        #expect(try keychain.get("a") == nil)
        #expect(try keychain.removeAll() == 1)
        #expect(try keychain.removeAll() == 0)
        #expect(try keychain.allKeys().isEmpty)
        #expect(try keychain.service("other").allKeys() == ["c"])
    }

    @Test("Modifiers return configured copies and leave the original alone")
    func modifiers() throws {
        let base = try TestKeychain(.inMemory).keychain
        let configured = base.service("s").accessGroup("TEAM.shared").accessibility(.afterFirstUnlock)
            .synchronizable(true).label("Label")
        #expect(base.service == "api" && base.accessGroup == nil && base.accessibility == .whenUnlocked)
        #expect(!base.isSynchronizable && base.label == nil)
        #expect(configured.service == "s" && configured.accessGroup == "TEAM.shared")
        #expect(configured.accessibility == .afterFirstUnlock && configured.isSynchronizable)
        #expect(configured.label == "Label")
        #expect(base.directory == nil)
    }

    @Test("The configuration is written to the item: group, accessibility, synchronizable, label")
    func configurationIsStored() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try keychain.accessGroup("TEAM.shared").accessibility(.afterFirstUnlock).synchronizable(true)
            .label("API token").set("t", for: "token")
        let stored = try #require(
            keychain.items(matching: GenericPassword.Query(account: "token", synchronizable: true)).first)
        #expect(stored.service == "api" && stored.accessGroup == "TEAM.shared")
        #expect(stored.accessibility == .afterFirstUnlock && stored.isSynchronizable && stored.label == "API token")
    }

    @Test("Local and synchronizable items, and access groups, are separate namespaces")
    func namespaces() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try keychain.set("local", for: "k")
        try keychain.synchronizable(true).set("synced", for: "k")
        try keychain.accessGroup("TEAM.shared").set("shared", for: "s")
        #expect(try keychain.get("k") == "local")
        #expect(try keychain.synchronizable(true).get("k") == "synced")
        #expect(try keychain.allKeys() == ["k", "s"])
        #expect(try keychain.accessGroup("TEAM.com.example.app").allKeys() == ["k"])
        #expect(try keychain.accessGroup("TEAM.shared").get("s") == "shared")
        #expect(try keychain.synchronizable(true).removeAll() == 1)
        #expect(try keychain.get("k") == "local")
    }

    @Test("A label set once is kept by later writes without one")
    func labelKept() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try keychain.label("Kept").set("1", for: "k")
        try keychain.set("2", for: "k")
        let item = try #require(keychain.items(matching: GenericPassword.Query(account: "k")).first)
        #expect(item.label == "Kept")
        #expect(try keychain.get("k") == "2")
    }

    @Test("A value of another type is a decode error naming the key and the field, never nil")
    func typeMismatch() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try keychain.set(["name": "alice"], for: "profile")
        let error = try #require(keychainError { try keychain.get("profile", as: Profile.self) })
        #expect(error == .decode)
        #expect(error.message.contains("\"profile\"") && error.message.contains("Profile"))
        try keychain.set(Data([0xff, 0xfe]), for: "binary")
        let text = try #require(keychainError { try keychain.get("binary") })
        #expect(text == .decode && text.message.contains("UTF-8"))
    }

    @Test("A value that cannot be encoded is a parameter error, and nothing is stored")
    func unencodable() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let error = try #require(keychainError { try keychain.set(Double.nan, for: "nan") })
        #expect(error == .param && error.message.contains("\"nan\""))
        #expect(try !keychain.contains("nan"))
    }
}
