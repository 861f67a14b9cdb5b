import Foundation
import Security
import Testing

/// `kSecMatchLimit` in `SecItemDelete`: iOS refuses it (`_SecItemDelete` in Apple's SecItemServer.c: "match limit
/// not supported by delete" for any limit but unlimited, which `kSecMatchLimitAll` is, and the limit still counts as
/// a match key), macOS's file keychain ignores it, and wrappers' non-iOS branches pass `kSecMatchLimitAll` to their
/// "remove all". `kSecMatchLimitAll` is accepted (a delete removes every match anyway); every other limit stays
/// `errSecParam` and deletes nothing.
@Suite struct DeleteMatchLimitTests {
    /// "Remove all" as a wrapper writes it.
    func removeAll(service: String) -> OSStatus {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        query[kSecAttrService as String] = service
        #if !os(iOS) && !os(watchOS) && !os(tvOS)
            query[kSecMatchLimit as String] = kSecMatchLimitAll
        #endif
        return SecItemDelete(query as CFDictionary)
    }

    @Test func limitAllDeletesEveryMatch() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            for account in ["a", "b", "c"] { #expect(add(password(account)).status == errSecSuccess) }
            #expect(add(password("d", service: "other")).status == errSecSuccess)
            #expect(removeAll(service: "svc") == errSecSuccess)
            #expect(secret("a") == nil && secret("b") == nil && secret("c") == nil)
            #expect(secret("d", service: "other") == "")
            #expect(removeAll(service: "svc") == errSecItemNotFound)
        }
    }

    @Test func otherLimitsAreParamErrorsAndDeleteNothing() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == errSecSuccess)
            for limit: Any in [kSecMatchLimitOne, 1, 2, NSNumber(value: 100)] {
                let outcome = delete(password("a", [kSecMatchLimit as String: limit]))
                #expect(outcome.status == errSecParam, "\(limit)")
                #expect(outcome.message?.contains("kSecMatchLimitAll") == true)
            }
            #expect(secret("a") == "")
        }
    }
}
