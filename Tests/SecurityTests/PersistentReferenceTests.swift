import Foundation
import KeychainCore
import Security
import Testing

/// Persistent references identify one item across runs; a query by one needs no class (DESIGN §6).
@Suite struct PersistentReferenceTests {
    private func reference(_ account: String, _ extra: [String: Any] = [:]) throws -> Data {
        let outcome = add(
            password(
                account,
                [kSecValueData as String: bytes("pw-\(account)"), kSecReturnPersistentRef as String: true].merging(
                    extra
                ) { $1 }))
        return try #require(outcome.result as? Data)
    }

    @Test func findsTheItemWithoutAClassAndAcrossRuns() throws {
        let keychain = try TestSecItemKeychain()
        let saved = try keychain.run { try reference("a") }
        _ = try keychain.run { try reference("b") }
        let restarted = SecItemKeychain(backend: try keychain.reopened(), caller: testApp)
        try restarted.run {
            let found = copy([kSecValuePersistentRef as String: saved, kSecReturnData as String: true])
            #expect(found.status == errSecSuccess)
            #expect(found.result as? Data == bytes("pw-a"))
            let attributes = copy([kSecValuePersistentRef as String: saved, kSecReturnAttributes as String: true])
            let dictionary = try #require(attributes.result as? [String: Any])
            #expect(dictionary["acct"] as? String == "a")
        }
    }

    @Test func aClassThatDiffersFindsNothing() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let saved = try reference("a")
            let query: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecValuePersistentRef as String: saved,
            ]
            #expect(copy(query).status == errSecItemNotFound)
            #expect(copy(query.merging([kSecClass as String: kSecClassGenericPassword]) { $1 }).status == errSecSuccess)
        }
    }

    @Test func cannotBeCombinedWithAttributes() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let saved = try reference("a")
            let query = password("a", [kSecValuePersistentRef as String: saved])
            for outcome in [copy(query), delete(query), update(query, [kSecAttrLabel as String: "x"])] {
                #expect(outcome.status == errSecParam)
                #expect(outcome.message?.contains("acct") == true)
            }
            let any = [
                kSecValuePersistentRef as String: saved, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
            ]
            #expect(copy(any).status == errSecSuccess)
        }
    }

    @Test func updatesAndDeletesTheOneItem() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let first = try reference("a")
            _ = try reference("b")
            #expect(
                update([kSecValuePersistentRef as String: first], [kSecValueData as String: bytes("new")]).status == 0)
            #expect(secret("a") == "new" && secret("b") == "pw-b")
            #expect(delete([kSecValuePersistentRef as String: first]).status == errSecSuccess)
            #expect(secret("a") == nil && secret("b") == "pw-b")
            #expect(delete([kSecValuePersistentRef as String: first]).status == errSecItemNotFound)
        }
    }

    @Test func findsASynchronizableItemWithoutSayingSo() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let saved = try reference("a", [kSecAttrSynchronizable as String: true])
            #expect(copy([kSecValuePersistentRef as String: saved]).status == errSecSuccess)
        }
    }

    @Test func malformedReferencesAndAddsAreParamErrors() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let saved = try reference("a")
            #expect(copy([kSecValuePersistentRef as String: Data(saved.prefix(12))]).status == errSecParam)
            #expect(copy([kSecValuePersistentRef as String: "genp"]).status == errSecParam)
            var unknownClass = saved
            unknownClass.replaceSubrange(0..<4, with: bytes("zzzz"))
            #expect(copy([kSecValuePersistentRef as String: unknownClass]).status == errSecParam)
            #expect(add(password("b", [kSecValuePersistentRef as String: saved])).status == errSecParam)
        }
    }

    @Test func referenceOfAnotherGroupIsNotFound() throws {
        let keychain = try TestSecItemKeychain()
        let saved = try keychain.run { try reference("a") }
        keychain.run(as: Caller(applicationIdentifier: "TEAM.other")) {
            #expect(copy([kSecValuePersistentRef as String: saved]).status == errSecItemNotFound)
            #expect(delete([kSecValuePersistentRef as String: saved]).status == errSecItemNotFound)
        }
        keychain.run { #expect(secret("a") == "pw-a") }
    }
}
