import Foundation
import Security
import Testing

/// `kSecReturnRef` on a password: there is no reference object for passwords, so Apple's server answers with a
/// dictionary of the class, the attributes and the data (`SecDbItemCopyResult` in SecItemDb.c sets `class` and
/// adds the return-attribute and return-data values when the ref bit is set), alone or with the other return keys.
@Suite struct ReturnRefTests {
    /// A query as a wrapper's attribute getter writes it.
    func query(_ account: String, _ returnKeys: [CFString], limit: CFString = kSecMatchLimitOne) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
            kSecAttrAccount as String: account, kSecMatchLimit as String: limit,
        ]
        for key in returnKeys { query[key as String] = kCFBooleanTrue }
        return query
    }

    @Test func aloneItIsTheDictionaryOfClassAttributesAndData() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(
                add(password("a", [kSecValueData as String: bytes("s"), kSecAttrLabel as String: "L"])).status == 0)
            let found = copy(query("a", [kSecReturnRef]))
            #expect(found.status == errSecSuccess)
            let item = try #require(found.result as? [String: Any])
            #expect(item[kSecClass as String] as? String == "genp")
            #expect(item[kSecAttrAccount as String] as? String == "a")
            #expect(item[kSecAttrLabel as String] as? String == "L")
            #expect(item[kSecAttrAccessible as String] as? String == "ak")
            #expect(item[kSecValueData as String] as? Data == bytes("s"))
            #expect(item[kSecValuePersistentRef as String] == nil)
        }
    }

    @Test func combinedItAddsToWhatTheOtherKeysAskFor() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(add(password("a", [kSecValueData as String: bytes("s")])).status == 0)
            let combinations: [[CFString]] = [
                [kSecReturnRef, kSecReturnData], [kSecReturnRef, kSecReturnAttributes],
                [kSecReturnRef, kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef],
                [kSecReturnRef, kSecReturnPersistentRef],
            ]
            for keys in combinations {
                let item = try #require(copy(query("a", keys)).result as? [String: Any], "\(keys)")
                #expect(item[kSecClass as String] as? String == "genp", "\(keys)")
                #expect(item[kSecAttrAccount as String] as? String == "a", "\(keys)")
                #expect(item[kSecValueData as String] as? Data == bytes("s"), "\(keys)")
                #expect((item[kSecValuePersistentRef as String] != nil) == keys.contains(kSecReturnPersistentRef))
            }
            let many = copy(query("a", [kSecReturnRef], limit: kSecMatchLimitAll))
            let items = try #require(many.result as? [[String: Any]])
            #expect(items.count == 1 && items.first?[kSecValueData as String] as? Data == bytes("s"))
        }
    }

    @Test func anAddReturnsTheSameDictionary() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let added = add(password("a", [kSecValueData as String: bytes("s"), kSecReturnRef as String: true]))
            #expect(added.status == errSecSuccess)
            let item = try #require(added.result as? [String: Any])
            #expect(
                item[kSecClass as String] as? String == "genp" && item[kSecValueData as String] as? Data == bytes("s"))
            #expect(add(password("b", [kSecReturnRef as String: false])).result == nil)
        }
    }

    @Test func anUpdateStillRefusesIt() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == 0)
            let outcome = update(password("a", [kSecReturnRef as String: true]), [kSecAttrLabel as String: "x"])
            #expect(outcome.status == errSecParam && outcome.message?.contains("r_Ref") == true)
        }
    }
}
