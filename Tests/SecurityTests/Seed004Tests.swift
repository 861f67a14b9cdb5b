import Foundation
import Security
import Testing

/// The seed's functions, unchanged, against a keychain of the test's own: same results as on iOS.
@Suite struct Seed004Tests {
    @Test func savedTokenIsRetrievedStoredWhenUnlockedThisDeviceOnly() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(retrieveToken(forAccount: "alice") == nil)
            #expect(saveToken("jwt-1", forAccount: "alice"))
            #expect(retrieveToken(forAccount: "alice") == "jwt-1")
            let found = copy(password("alice", service: "", [kSecReturnAttributes as String: true]))
            let attributes = try #require(found.result as? [String: Any])
            #expect(attributes[kSecAttrAccessible as String] as? String == "aku")
            #expect(attributes[kSecAttrAccessGroup as String] as? String == "TEAM.com.example.app")
        }
    }

    /// The seed deletes with the add dictionary (which holds kSecValueData) before adding: that works only because
    /// kSecValueData is not a match criterion in a delete query.
    @Test func savingAgainReplacesTheTokenThroughDeleteThenAdd() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(saveToken("jwt-1", forAccount: "alice"))
            #expect(saveToken("jwt-2", forAccount: "alice"))
            #expect(retrieveToken(forAccount: "alice") == "jwt-2")
            let all = copy([
                kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true,
            ])
            let items = try #require(all.result as? [[String: Any]])
            #expect(items.count == 1)
        }
    }

    @Test func updateChangesTheTokenAndDeleteRemovesIt() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(!updateToken("jwt-0", forAccount: "bob"))
            #expect(saveToken("jwt-1", forAccount: "bob"))
            #expect(updateToken("jwt-2", forAccount: "bob"))
            #expect(retrieveToken(forAccount: "bob") == "jwt-2")
            #expect(deleteItem(forAccount: "bob"))
            #expect(retrieveToken(forAccount: "bob") == nil)
            #expect(!deleteItem(forAccount: "bob"))
        }
    }

    @Test func accountsAreSeparateItems() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(saveToken("a-token", forAccount: "alice"))
            #expect(saveToken("b-token", forAccount: "bob"))
            #expect(deleteItem(forAccount: "alice"))
            #expect(retrieveToken(forAccount: "bob") == "b-token")
        }
    }

    /// The snippet asks for user presence, which is not enforced yet: the add is refused, never stored unprotected.
    @Test func accessControlSnippetIsRefusedAndStoresNothing() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            seedAddWithAccessControl(account: "carol", tokenData: bytes("secret"))
            let message = try #require(SecCopyLastErrorMessage() as String?)
            #expect(message.contains("not implemented yet"))
            #expect(message.contains("userPresence"))
            #expect(retrieveToken(forAccount: "carol") == nil)
        }
    }
}
