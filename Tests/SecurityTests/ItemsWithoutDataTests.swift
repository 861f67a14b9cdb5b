import Foundation
import Security
import Testing

/// An item added without `kSecValueData`: `kSecReturnData` alone gives empty data (Apple's `SecDbItemCopyResult`
/// creates an empty `CFData` when the item has none), while a dictionary result leaves `v_Data` out, as it leaves out
/// every absent value (`SecDbItemCopyResult` adds only values that are not null).
@Suite struct ItemsWithoutDataTests {
    func marker(_ extra: [String: Any] = [:]) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "marker"].merging(extra) { $1 }
    }

    @Test func dataAloneIsEmptyData() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(marker()).status == errSecSuccess)
            let found = copy(marker([kSecReturnData as String: true]))
            #expect(found.status == errSecSuccess && found.result as? Data == Data())
            let all = copy(marker([kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]))
            #expect(all.result as? [Data] == [Data()])
        }
    }

    @Test func dictionariesLeaveOutTheDataAndEveryAbsentAttribute() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(add(marker()).status == errSecSuccess)
            let returnKeys: [[String]] = [
                [kSecReturnData as String, kSecReturnAttributes as String],
                [kSecReturnData as String, kSecReturnPersistentRef as String], [kSecReturnRef as String],
            ]
            for keys in returnKeys {
                var query = marker()
                for key in keys { query[key] = true }
                let item = try #require(copy(query).result as? NSDictionary, "\(keys)")
                #expect(item[kSecValueData as String] == nil, "\(keys)")
                #expect(!item.allValues.contains { $0 is NSNull }, "\(keys)")
                if keys.contains(kSecReturnPersistentRef as String) {
                    #expect(Set(item.allKeys.compactMap { $0 as? String }) == ["v_PersistentRef"])
                } else {
                    // Exactly what the item has: the class, its account and what the keychain sets.
                    let expected: Set = ["class", "acct", "agrp", "pdmn", "sync", "cdat", "mdat"]
                    #expect(Set(item.allKeys.compactMap { $0 as? String }) == expected, "\(keys)")
                }
            }
        }
    }

    @Test func dataAddedLaterIsReturned() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(marker()).status == errSecSuccess)
            #expect(update(marker(), [kSecValueData as String: bytes("now")]).status == errSecSuccess)
            let item = copy(marker([kSecReturnData as String: true, kSecReturnAttributes as String: true]))
            #expect((item.result as? [String: Any])?[kSecValueData as String] as? Data == bytes("now"))
        }
    }
}
