import Foundation
import Security
import Testing

/// A plain query never sees synchronizable items; kSecAttrSynchronizableAny sees both (DESIGN §6).
@Suite struct SynchronizableTests {
    private func addBoth() {
        #expect(add(password("a", [kSecValueData as String: bytes("local")])).status == 0)
        #expect(
            add(password("a", [kSecValueData as String: bytes("synced"), kSecAttrSynchronizable as String: true]))
                .status == 0)
    }

    @Test func plainTrueAndAnyQueriesSeeTheirItems() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            addBoth()
            #expect(secret("a") == "local")
            #expect(secret("a", [kSecAttrSynchronizable as String: false]) == "local")
            #expect(secret("a", [kSecAttrSynchronizable as String: kCFBooleanTrue as Any]) == "synced")
            #expect(secret("a", [kSecAttrSynchronizable as String: NSNumber(value: 1)]) == "synced")
            let both = copy(
                password(
                    "a",
                    [
                        kSecAttrSynchronizable as String: kSecAttrSynchronizableAny, kSecReturnData as String: true,
                        kSecMatchLimit as String: kSecMatchLimitAll,
                    ]))
            let secrets = try #require(both.result as? [Data]).map { String(decoding: $0, as: UTF8.self) }
            #expect(Set(secrets) == ["local", "synced"])
        }
    }

    @Test func updateAndDeleteFollowTheSameFilter() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            addBoth()
            #expect(delete(password("a")).status == 0)
            #expect(secret("a", [kSecAttrSynchronizable as String: true]) == "synced")
            #expect(add(password("a", [kSecValueData as String: bytes("local")])).status == 0)
            let any = password("a", [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])
            #expect(update(any, [kSecValueData as String: bytes("both")]).status == 0)
            #expect(secret("a") == "both" && secret("a", [kSecAttrSynchronizable as String: true]) == "both")
            #expect(delete(any).status == 0)
            #expect(
                copy(password("a", [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).status
                    == errSecItemNotFound)
        }
    }

    @Test func addWithAnyStoresALocalItem() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).status == 0)
            #expect(secret("a") == "")
        }
    }

    @Test func otherValuesAreParamErrors() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            for value: Any in ["yes", 2, Data([1])] {
                let outcome = add(password("a", [kSecAttrSynchronizable as String: value]))
                #expect(outcome.status == errSecParam)
                #expect(outcome.message?.contains("sync") == true)
            }
        }
    }
}
