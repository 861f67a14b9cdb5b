import Foundation
import Security
import Testing

/// Duplicates are decided by Apple's primary key and nothing else (DESIGN §2).
@Suite struct DuplicateTests {
    @Test func sameAccountAndServiceIsADuplicateWhateverElseDiffers() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecValueData as String: bytes("one")])).status == errSecSuccess)
            let again = add(
                password(
                    "a",
                    [
                        kSecValueData as String: bytes("two"), kSecAttrLabel as String: "other label",
                        kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
                    ]))
            #expect(again.status == errSecDuplicateItem)
            #expect(again.message?.contains("acct \"a\"") == true)
            #expect(secret("a") == "one")
            #expect(add(password("a", service: "other")).status == errSecSuccess)
        }
    }

    @Test func missingAccountCountsAsEmpty() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let service: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
            ]
            #expect(add(service).status == errSecSuccess)
            #expect(add(service.merging([kSecAttrAccount as String: ""]) { $1 }).status == errSecDuplicateItem)
        }
    }

    @Test func synchronizableAndLocalCopiesCoexist() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == errSecSuccess)
            #expect(add(password("a", [kSecAttrSynchronizable as String: true])).status == errSecSuccess)
            #expect(
                add(password("a", [kSecAttrSynchronizable as String: kCFBooleanTrue as Any])).status
                    == errSecDuplicateItem)
        }
    }

    @Test func internetPasswordKeyHasSevenAttributes() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let site: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                kSecAttrAccount as String: "me", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
                kSecAttrPort as String: 443, kSecAttrPath as String: "/login",
                kSecAttrSecurityDomain as String: "realm",
                kSecValueData as String: bytes("pw"),
            ]
            #expect(add(site).status == errSecSuccess)
            #expect(
                add(site.merging([kSecAttrComment as String: "not in the key"]) { $1 }).status == errSecDuplicateItem)
            let variants: [String: Any] = [
                kSecAttrServer as String: "example.org", kSecAttrAccount as String: "you",
                kSecAttrProtocol as String: kSecAttrProtocolHTTP, kSecAttrPort as String: 8443,
                kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTTPBasic,
                kSecAttrPath as String: "/", kSecAttrSecurityDomain as String: "other",
            ]
            for (key, value) in variants {
                #expect(add(site.merging([key: value]) { $1 }).status == errSecSuccess, "\(key)")
            }
            let found = copy([
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                kSecAttrPort as String: NSNumber(value: 443), kSecReturnAttributes as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ])
            let items = found.result as? [[String: Any]]
            #expect(items?.count == 6)
            #expect(items?.allSatisfy { $0["port"] as? Int == 443 || $0["port"] as? Int == 8443 } == true)
            #expect(items?.first?["ptcl"] is String)
        }
    }
}
