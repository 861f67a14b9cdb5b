import Foundation
import Security
import Testing

/// What a result holds for every combination of return keys and limits (DESIGN §6, Apple's result shapes).
@Suite struct ReturnShapeTests {
    /// A combination of kSecReturnData, kSecReturnAttributes and kSecReturnPersistentRef.
    struct Returns: CustomTestStringConvertible, Sendable {
        var data: Bool
        var attributes: Bool
        var persistentRef: Bool

        static let all: [Returns] = (0..<8).map {
            Returns(data: $0 & 1 != 0, attributes: $0 & 2 != 0, persistentRef: $0 & 4 != 0)
        }

        var keys: [String: Any] {
            var keys: [String: Any] = [:]
            if data { keys[kSecReturnData as String] = true }
            if attributes { keys[kSecReturnAttributes as String] = true }
            if persistentRef { keys[kSecReturnPersistentRef as String] = kCFBooleanTrue as Any }
            return keys
        }

        var testDescription: String {
            let names = [data ? "data" : nil, attributes ? "attributes" : nil, persistentRef ? "persistentRef" : nil]
            return names.compactMap { $0 }.joined(separator: "+").isEmpty
                ? "nothing" : names.compactMap { $0 }.joined(separator: "+")
        }
    }

    /// A kSecMatchLimit value (or none) and whether it returns one object.
    struct Limit: CustomTestStringConvertible, Sendable {
        var name: String
        var single: Bool
        var count: Int

        static let all: [Limit] = [
            Limit(name: "default", single: true, count: 1), Limit(name: "one", single: true, count: 1),
            Limit(name: "number 1", single: true, count: 1), Limit(name: "number 2", single: false, count: 2),
            Limit(name: "all", single: false, count: 3),
        ]

        var keys: [String: Any] {
            switch name {
            case "one": [kSecMatchLimit as String: kSecMatchLimitOne]
            case "number 1": [kSecMatchLimit as String: 1]
            case "number 2": [kSecMatchLimit as String: NSNumber(value: 2)]
            case "all": [kSecMatchLimit as String: kSecMatchLimitAll]
            default: [:]
            }
        }

        var testDescription: String { name }
    }

    @Test(arguments: Returns.all, Limit.all)
    func resultShape(returns: Returns, limit: Limit) throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            for account in ["a", "b", "c"] {
                #expect(
                    add(password(account, service: "shape", [kSecValueData as String: bytes("pw-\(account)")])).status
                        == errSecSuccess)
            }
            let query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "shape"]
                .merging(returns.keys) { $1 }.merging(limit.keys) { $1 }
            let outcome = copy(query)
            #expect(outcome.status == errSecSuccess)
            if returns.keys.isEmpty {
                #expect(outcome.result == nil)
                return
            }
            let objects: [Any]
            if limit.single {
                objects = [try #require(outcome.result)]
                #expect(!(outcome.result is NSArray))
            } else {
                objects = try #require(outcome.result as? [Any])
            }
            #expect(objects.count == limit.count)
            for object in objects { try checkItem(object, returns) }
        }
    }

    private func checkItem(_ object: Any, _ returns: Returns) throws {
        switch (returns.data, returns.attributes, returns.persistentRef) {
        case (true, false, false):
            let data = try #require(object as? Data)
            #expect(String(decoding: data, as: UTF8.self).hasPrefix("pw-"))
        case (false, false, true):
            let data = try #require(object as? Data)
            #expect(data.count == 20 && data.prefix(4) == bytes("genp"))
        default:
            let dictionary = try #require(object as? [String: Any])
            var expected: Set<String> = []
            if returns.attributes {
                expected.formUnion(["class", "acct", "svce", "agrp", "pdmn", "sync", "cdat", "mdat"])
            }
            if returns.data { expected.insert("v_Data") }
            if returns.persistentRef { expected.insert("v_PersistentRef") }
            #expect(Set(dictionary.keys) == expected)
            if returns.data { #expect((dictionary["v_Data"] as? Data).map { $0.starts(with: bytes("pw-")) } == true) }
            if returns.attributes {
                #expect(dictionary["class"] as? String == "genp")
                #expect(dictionary["sync"] as? Bool == false)
                #expect(dictionary["sync"] as? Int == 0)
                #expect(dictionary["cdat"] is Date)
            }
        }
    }

    @Test(arguments: Limit.all)
    func noMatchIsNotFoundWithNilResult(limit: Limit) throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let outcome = copy(
                password("nobody", [kSecReturnAttributes as String: true]).merging(limit.keys) { $1 })
            #expect(outcome.status == errSecItemNotFound)
            #expect(outcome.result == nil)
        }
    }

    @Test func addReturnsTheNewItemInTheSameShapes() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let data = add(password("a", [kSecValueData as String: bytes("s1"), kSecReturnData as String: true]))
            #expect(data.result as? Data == bytes("s1"))
            let reference = add(password("b", [kSecReturnPersistentRef as String: true]))
            let referenceData = reference.result as? Data
            #expect(referenceData?.count == 20)
            let attributes = add(password("c", [kSecReturnAttributes as String: true]))
            let dictionary = attributes.result as? [String: Any]
            #expect(dictionary?["pdmn"] as? String == "ak")
            #expect(dictionary?["v_Data"] == nil)
            let nothing = add(password("d"))
            #expect(nothing.status == errSecSuccess && nothing.result == nil)
            let found = copy([
                kSecValuePersistentRef as String: referenceData as Any, kSecReturnAttributes as String: true,
            ])
            #expect((found.result as? [String: Any])?["acct"] as? String == "b")
        }
    }

    @Test func emptySecretComesBackAsEmptyData() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("empty")).status == errSecSuccess)
            #expect(secret("empty") == "")
        }
    }
}
