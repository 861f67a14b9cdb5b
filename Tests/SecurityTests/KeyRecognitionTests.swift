import Foundation
import LocalAuthentication
import Security
import Testing

/// Which keys a dictionary may hold, and what an unknown one is (Apple's server rules, DESIGN §6).
@Suite struct KeyRecognitionTests {
    @Test func classIsRequiredKnownAndText() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let missing = add([kSecAttrAccount as String: "a"])
            #expect(missing.status == errSecParam)
            #expect(missing.message?.contains("kSecClass") == true)
            #expect(add([kSecClass as String: "zzzz"]).status == errSecNoSuchClass)
            #expect(add([kSecClass as String: 42]).status == errSecParam)
            // Keys, certificates and identities are classes like the passwords: an empty keychain has none.
            for credentialClass in [kSecClassKey, kSecClassCertificate, kSecClassIdentity] {
                #expect(copy([kSecClass as String: credentialClass]).status == errSecItemNotFound)
            }
        }
    }

    @Test func fourCharacterKeysTheClassLacksAreNoSuchAttr() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            for key in [kSecAttrServer as String, kSecAttrPort as String, "zzzz", "tomb"] {
                for outcome in [
                    add(password("a", [key: "x"])), copy(password("a", [key: "x"])), delete(password("a", [key: "x"])),
                ] {
                    #expect(outcome.status == errSecNoSuchAttr, "\(key)")
                    #expect(outcome.message?.contains("\"\(key)\"") == true)
                }
            }
            let internet = add([kSecClass as String: kSecClassInternetPassword, kSecAttrService as String: "x"])
            #expect(internet.status == errSecNoSuchAttr)
        }
    }

    @Test func otherUnknownKeysAreParamErrors() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let keys = ["foo", "r_Everything", "m_Policy", "v_Other", "u_Keychain", "classy", "x"]
            for key in keys {
                let outcome = add(password("a", [key: true]))
                #expect(outcome.status == errSecParam, "\(key)")
                #expect(outcome.message?.contains(key) == true)
            }
            #expect(copy(password("a", [kSecValueRef as String: NSData()])).status == errSecParam)
            let numericKey = NSDictionary(dictionary: [kSecClass: kSecClassGenericPassword, NSNumber(value: 7): "x"])
            #expect(SecItemAdd(numericKey, nil) == errSecParam)
            var many = password("a")
            for index in 0..<130 { many["k\(index)"] = true }
            #expect(add(many).status == errSecParam)
        }
    }

    @Test func acceptedAndIgnoredKeys() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let extras: [String: Any] = [
                kSecUseDataProtectionKeychain as String: true, kSecAttrPersistentReference as String: Data([1]),
                kSecUseAuthenticationContext as String: LAContext(), kSecUseOperationPrompt as String: "Unlock",
                kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ]
            #expect(add(password("a", extras)).status == errSecSuccess)
            #expect(secret("a", extras) == "")
            #expect(secret("a", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]) == "")
            #expect(secret("a", [kSecUseNoAuthenticationUI as String: true]) == "")
        }
    }

    @Test func skippingAuthenticationIsOnlyForCopyMatching() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let skip = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]
            #expect(add(password("a", skip)).status == errSecParam)
            #expect(add(password("a")).status == 0)
            #expect(update(password("a", skip), [kSecAttrLabel as String: "x"]).status == errSecParam)
            #expect(delete(password("a", skip)).status == errSecParam)
            #expect(copy(password("a", [kSecUseAuthenticationUI as String: "sometimes"])).status == errSecParam)
        }
    }

    @Test func matchKeysAreRefusedByAdd() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecMatchLimit as String: kSecMatchLimitOne])).status == errSecParam)
            #expect(secret("a") == nil)
        }
    }

    @Test func caseInsensitiveMatchingIsHonoured() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("Alice", service: "Mail")).status == 0)
            #expect(secret("alice", service: "mail") == nil)
            #expect(secret("alice", service: "MAIL", [kSecMatchCaseInsensitive as String: true]) == "")
            #expect(copy(password("a", [kSecMatchCaseInsensitive as String: "yes"])).status == errSecParam)
        }
    }

    @Test func limitsMustBePositiveOrNamed() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == 0)
            for limit: Any in [0, -1, "m_LimitMany", true, 1.5] {
                #expect(copy(password("a", [kSecMatchLimit as String: limit])).status == errSecParam, "\(limit)")
            }
        }
    }
}
