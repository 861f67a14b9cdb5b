import Foundation
import KeychainCore
import Security
import Testing

/// A synchronizable item with a ThisDeviceOnly accessibility: iOS's server has no rule against the pair and stores
/// it (it keeps it on the device). It is accepted and stored here, in adds and updates.
@Suite struct SynchronizableThisDeviceOnlyTests {
    func synchronizable(_ account: String, _ accessible: CFString) -> [String: Any] {
        password(account, [kSecAttrSynchronizable as String: true, kSecAttrAccessible as String: accessible])
    }

    @Test func addStoresItForEveryThisDeviceOnlyClass() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let classes = [
                kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                kSecAttrAccessibleAlwaysThisDeviceOnly,
            ]
            for (index, accessible) in classes.enumerated() {
                let account = "a\(index)"
                #expect(
                    add(synchronizable(account, accessible).merging([kSecValueData as String: bytes("s")]) { $1 })
                        .status == 0)
                let found = copy(
                    password(account, [kSecAttrSynchronizable as String: true, kSecReturnAttributes as String: true]))
                let item = try #require(found.result as? [String: Any])
                #expect(item[kSecAttrAccessible as String] as? String == accessible as String)
                #expect(item[kSecAttrSynchronizable as String] as? Bool == true)
                #expect(secret(account, [kSecAttrSynchronizable as String: true]) == "s")
                // A plain query sees local items only, as for any synchronizable item.
                #expect(secret(account) == nil)
            }
        }
    }

    @Test func updatesMayMakeThePair() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(
                add(password("local", [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]))
                    .status == 0)
            #expect(update(password("local"), [kSecAttrSynchronizable as String: true]).status == errSecSuccess)
            #expect(add(password("synced", [kSecAttrSynchronizable as String: true])).status == 0)
            let changes = [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
            #expect(update(password("synced", [kSecAttrSynchronizable as String: true]), changes).status == 0)
            let any = [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
            #expect(secret("local", any) == "" && secret("synced", any) == "")
        }
    }

    /// The engine still refuses the pair unless the request allows it: the `Keychain` API keeps that rule.
    @Test func theEngineRefusesItUnlessAsked() throws {
        let keychain = try TestSecItemKeychain()
        let attributes: ItemAttributes = [.synchronizable: .bool(true), .accessible: .string("aku")]
        #expect(throws: EngineError.self) {
            try keychain.engine.add(NewItem(itemClass: .genericPassword, attributes: attributes), for: testApp)
        }
        let item = NewItem(
            itemClass: .genericPassword, attributes: attributes, allowsThisDeviceOnlySynchronizable: true)
        #expect(try keychain.engine.add(item, for: testApp).attributes.bool(.synchronizable) == true)
    }
}
