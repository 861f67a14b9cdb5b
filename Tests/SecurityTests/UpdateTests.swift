import Foundation
import Security
import Testing

/// SecItemUpdate's rules (DESIGN §6).
@Suite struct UpdateTests {
    @Test func returnKeysInTheQueryAreParamErrors() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == errSecSuccess)
            for key in [kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef, kSecReturnRef] {
                for value in [true, false] {
                    let outcome = update(password("a", [key as String: value]), [kSecAttrLabel as String: "x"])
                    #expect(outcome.status == errSecParam, "\(key) \(value)")
                    #expect(outcome.message?.contains(key as String) == true)
                }
            }
        }
    }

    @Test func matchKeysInTheQueryAreParamErrors() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == errSecSuccess)
            let matches: [String: Any] = [
                kSecMatchLimit as String: kSecMatchLimitOne, kSecMatchCaseInsensitive as String: true,
            ]
            for (key, value) in matches {
                #expect(update(password("a", [key: value]), [kSecAttrLabel as String: "x"]).status == errSecParam)
            }
            #expect(
                update(password("a", [kSecMatchLimit as String: kSecMatchLimitAll]), [kSecAttrLabel as String: "x"])
                    .status == errSecParam)
        }
    }

    @Test func updatesEveryMatchAndBumpsTheModificationDate() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            for account in ["a", "b"] {
                #expect(add(password(account, [kSecValueData as String: bytes("old")])).status == 0)
            }
            let before = try #require(
                copy(password("a", [kSecReturnAttributes as String: true])).result as? [String: Any])
            let service = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]
            #expect(update(service, [kSecValueData as String: bytes("new"), kSecAttrLabel as String: "L"]).status == 0)
            #expect(secret("a") == "new" && secret("b") == "new")
            let after = try #require(
                copy(password("a", [kSecReturnAttributes as String: true])).result as? [String: Any])
            #expect(after["labl"] as? String == "L")
            #expect(after["cdat"] as? Date == before["cdat"] as? Date)
            let modified = try #require(after["mdat"] as? Date)
            #expect(modified >= (before["mdat"] as? Date ?? .distantFuture))
        }
    }

    @Test func noMatchIsNotFound() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(update(password("ghost"), [kSecValueData as String: bytes("x")]).status == errSecItemNotFound)
        }
    }

    @Test func movingOntoAnExistingKeyIsADuplicateAndChangesNothing() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecValueData as String: bytes("A")])).status == 0)
            #expect(add(password("b", [kSecValueData as String: bytes("B")])).status == 0)
            #expect(update(password("b"), [kSecAttrAccount as String: "a"]).status == errSecDuplicateItem)
            #expect(secret("a") == "A" && secret("b") == "B")
            #expect(update(password("b"), [kSecAttrAccount as String: "c"]).status == errSecSuccess)
            #expect(secret("c") == "B" && secret("b") == nil)
        }
    }

    @Test func valueDataInTheQueryIsNotAMatchCriterionButMustBeData() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecValueData as String: bytes("A")])).status == 0)
            let query = password("a", [kSecValueData as String: bytes("something else")])
            #expect(update(query, [kSecValueData as String: bytes("B")]).status == errSecSuccess)
            #expect(secret("a") == "B")
            #expect(
                update(password("a", [kSecValueData as String: "text"]), [kSecAttrLabel as String: "x"]).status
                    == errSecParam)
        }
    }

    @Test func attributesToUpdateTakeOnlyAttributesAndData() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == 0)
            #expect(update(password("a"), [kSecValueData as String: "not data"]).status == errSecParam)
            #expect(update(password("a"), [kSecClass as String: kSecClassGenericPassword]).status == errSecNoSuchAttr)
            #expect(update(password("a"), [kSecReturnData as String: true]).status == errSecNoSuchAttr)
            #expect(update(password("a"), [kSecAttrServer as String: "x"]).status == errSecNoSuchAttr)
            #expect(update(password("a"), [kSecAttrCreator as String: "eighty"]).status == errSecParam)
            #expect(update(password("a"), [:]).status == errSecParam)
        }
    }

    @Test func updateCanMakeAnItemSynchronizable() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a")).status == 0)
            #expect(update(password("a"), [kSecAttrSynchronizable as String: true]).status == 0)
            #expect(secret("a") == nil)
            #expect(secret("a", [kSecAttrSynchronizable as String: true]) == "")
        }
    }
}
