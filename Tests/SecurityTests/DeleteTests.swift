import Foundation
import KeychainCore
import Security
import Testing

/// SecItemDelete's rules (DESIGN §6).
@Suite struct DeleteTests {
    /// kSecMatchLimitAll is accepted (DeleteMatchLimitTests); every other limit and match key is refused.
    @Test func otherMatchKeysAreParamErrorsAndDeleteNothing() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == 0)
            for limit: Any in [kSecMatchLimitOne, 1, 5] {
                let outcome = delete(password("a", [kSecMatchLimit as String: limit]))
                #expect(outcome.status == errSecParam)
                #expect(outcome.message?.contains("m_Limit") == true)
            }
            #expect(delete(password("a", [kSecMatchCaseInsensitive as String: true])).status == errSecParam)
            #expect(secret("a") == "")
        }
    }

    @Test func deletesEveryMatch() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            for account in ["a", "b", "c"] { #expect(add(password(account)).status == 0) }
            #expect(add(password("d", service: "other")).status == 0)
            #expect(
                delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]).status == 0)
            #expect(secret("a") == nil && secret("b") == nil && secret("c") == nil)
            #expect(secret("d", service: "other") == "")
            #expect(delete(password("a")).status == errSecItemNotFound)
        }
    }

    @Test func valueDataIsIgnoredButMustBeData() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecValueData as String: bytes("real")])).status == 0)
            let wrongType = delete(password("a", [kSecValueData as String: "real"]))
            #expect(wrongType.status == errSecParam)
            #expect(wrongType.message?.contains("real") == false)
            #expect(delete(password("a", [kSecValueData as String: bytes("other")])).status == errSecSuccess)
            #expect(secret("a") == nil)
        }
    }

    @Test func returnKeysAreAcceptedAndIgnored() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == 0)
            #expect(delete(password("a", [kSecReturnData as String: true])).status == errSecSuccess)
        }
    }

    @Test func classWithoutAttributesDeletesTheCallersItemsOfThatClassOnly() throws {
        let keychain = try TestSecItemKeychain()
        let other = Caller(applicationIdentifier: "TEAM.other")
        keychain.run {
            #expect(add(password("mine")).status == 0)
        }
        keychain.run(as: other) {
            #expect(add(password("theirs")).status == 0)
            #expect(add([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "h"]).status == 0)
        }
        keychain.run {
            #expect(delete([kSecClass as String: kSecClassGenericPassword]).status == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassInternetPassword]).status == errSecItemNotFound)
        }
        keychain.run(as: other) {
            #expect(secret("theirs") == "")
        }
    }
}
