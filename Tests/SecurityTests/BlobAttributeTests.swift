import Foundation
import Security
import Testing

/// Apple's blob attributes (`acct`, `svce`, `gena`, `labl`, `desc`, `icmt`, `srvr`, `sdmn`, `atyp`, `path`) take
/// `String` or `Data` and keep what they were given: `copyBlob` in Apple's SecDbItem.c copies either, and the schema
/// (SecItemSchema.c) declares them `Blob`. Here a `String` and the `Data` of its UTF-8 are one value in adds,
/// queries, updates and deletes.
@Suite struct BlobAttributeTests {
    /// A query keyed by `Data`, as a wrapper that encodes every key as UTF-8 bytes writes it.
    func dataKeyed(_ key: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        query[kSecAttrService as String] = "svc"
        query[kSecAttrAccount as String] = key.data(using: .utf8)
        query[kSecAttrGeneric as String] = key.data(using: .utf8)
        return query.merging(extra) { $1 }
    }

    @Test func dataAccountsAreAddedFoundUpdatedAndDeleted() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(add(dataKeyed("token", [kSecValueData as String: bytes("v1")])).status == errSecSuccess)
            #expect(copy(dataKeyed("token", [kSecReturnData as String: true])).result as? Data == bytes("v1"))
            #expect(update(dataKeyed("token"), [kSecValueData as String: bytes("v2")]).status == errSecSuccess)
            // The same item through a String account: text and its UTF-8 bytes are one value.
            #expect(secret("token") == "v2")
            #expect(add(dataKeyed("token")).status == errSecDuplicateItem)
            #expect(add(password("token")).status == errSecDuplicateItem)
            let all = copy([
                kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ])
            let items = try #require(all.result as? [[AnyHashable: Any]])
            #expect(items.count == 1)
            #expect(items.first?[kSecAttrAccount as String] as? Data == bytes("token"))
            #expect(delete(dataKeyed("token")).status == errSecSuccess)
            #expect(secret("token") == nil)
        }
    }

    @Test func returnedValuesKeepTheTypeTheyWereGiven() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(add(dataKeyed("data")).status == errSecSuccess)
            #expect(add(password("text", [kSecAttrGeneric as String: "generic text"])).status == errSecSuccess)
            let data = try #require(
                copy(dataKeyed("data", [kSecReturnAttributes as String: true])).result as? NSDictionary)
            #expect(data[kSecAttrAccount as String] is NSData)
            #expect(data[kSecAttrGeneric as String] as? Data == bytes("data"))
            #expect(data[kSecAttrService as String] as? String == "svc")
            // Found with Data, returned as the String it was added with.
            let byData: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: bytes("text"),
                kSecAttrGeneric as String: bytes("generic text"), kSecReturnAttributes as String: true,
            ]
            let text = try #require(copy(byData).result as? [String: Any])
            #expect(text[kSecAttrAccount as String] as? String == "text")
            #expect(text[kSecAttrGeneric as String] as? String == "generic text")
        }
    }

    @Test func accountsThatAreNotUTF8AreDistinctItems() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let first = Data([0xFF, 0xFE, 0x00, 0x01])
            let second = Data([0xFF, 0xFE, 0x00, 0x02])
            for (account, value) in [(first, "one"), (second, "two")] {
                let attributes: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecValueData as String: bytes(value),
                ]
                #expect(add(attributes).status == errSecSuccess)
                #expect(add(attributes).status == errSecDuplicateItem)
            }
            func value(_ account: Data) -> Data? {
                copy([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecReturnData as String: true,
                ]).result as? Data
            }
            #expect(value(first) == bytes("one") && value(second) == bytes("two"))
            #expect(value(Data([0xFF, 0xFE])) == nil)
            let changes: [String: Any] = [kSecAttrAccount as String: Data([0xFF, 0x03])]
            #expect(
                update([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: second], changes)
                    .status == errSecSuccess)
            #expect(value(second) == nil && value(Data([0xFF, 0x03])) == bytes("two"))
            #expect(
                delete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: first]).status == 0)
            #expect(value(first) == nil && value(Data([0xFF, 0x03])) == bytes("two"))
        }
    }

    @Test func everyBlobAttributeTakesTextOrData() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let classes: [(CFString, [CFString])] = [
                (
                    kSecClassGenericPassword,
                    [
                        kSecAttrAccount, kSecAttrService, kSecAttrGeneric, kSecAttrLabel, kSecAttrDescription,
                        kSecAttrComment,
                    ]
                ),
                (
                    kSecClassInternetPassword,
                    [kSecAttrAccount, kSecAttrServer, kSecAttrSecurityDomain, kSecAttrPath, kSecAttrAuthenticationType]
                ),
            ]
            for (itemClass, keys) in classes {
                for key in keys {
                    let added: [String: Any] = [kSecClass as String: itemClass, key as String: bytes("v-\(key)")]
                    #expect(add(added).status == errSecSuccess, "\(key)")
                    let query: [String: Any] = [
                        kSecClass as String: itemClass, key as String: "v-\(key)", kSecReturnAttributes as String: true,
                    ]
                    let found = copy(query)
                    #expect(found.status == errSecSuccess, "\(key)")
                    #expect((found.result as? [String: Any])?[key as String] as? Data == bytes("v-\(key)"), "\(key)")
                    #expect(
                        update(query.filter { $0.key != kSecReturnAttributes as String }, [key as String: "t"]).status
                            == 0)
                    #expect(delete([kSecClass as String: itemClass, key as String: bytes("t")]).status == 0, "\(key)")
                }
            }
        }
    }

    @Test func caseInsensitiveMatchingReadsDataAsText() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(dataKeyed("Alice")).status == errSecSuccess)
            #expect(copy(password("alice", [kSecMatchCaseInsensitive as String: true])).status == errSecSuccess)
            #expect(copy(password("alice")).status == errSecItemNotFound)
        }
    }

    /// Numbers stay numbers and dates dates; a type Apple's converters also refuse is errSecParam naming the key.
    @Test func otherTypesAreStillParamErrors() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let cases: [(String, Any)] = [
                (kSecAttrAccount as String, Date()), (kSecAttrService as String, true),
                (kSecAttrGeneric as String, NSNull()),
                (kSecAttrCreator as String, bytes("aapl")), (kSecAttrCreationDate as String, bytes("now")),
            ]
            for (key, value) in cases {
                let outcome = add(password("a", [key: value]))
                #expect(outcome.status == errSecParam, "\(key)")
                #expect(outcome.message?.contains("\"\(key)\"") == true, "\(outcome.message ?? "")")
            }
            #expect(secret("a") == nil)
        }
    }
}
