import Foundation
import Security
import TestSupport
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

    /// The snippet's item asks for user presence: it is added without a prompt, its attributes read without one,
    /// and its data only with the keychain passcode (typed here by a script; `SeedAccessControlTerminalTests` runs
    /// the seed's own `retrieveToken` at a real terminal).
    @Test func accessControlSnippetStoresAnItemThatAsksForThePasscode() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.engine.setPasscode("2468", current: nil)
        try keychain.run {
            seedAddWithAccessControl(account: "carol", tokenData: bytes("secret"))
            let attributes = copy(password("carol", service: "", [kSecReturnAttributes as String: true]))
            let stored = try #require(attributes.result as? [String: Any])
            #expect(stored[kSecAttrAccessible as String] as? String == "aku")
            #expect(stored[kSecAttrAccessControl as String] is SecAccessControl)
            let prompter = ScriptedPrompter([.type("2468")])
            let read = copy(
                password(
                    "carol", service: "",
                    [
                        kSecReturnData as String: true,
                        kSecUseAuthenticationContext as String: scriptedContext(prompter),
                    ]))
            #expect(read.result as? Data == bytes("secret"))
            #expect(prompter.asked.count == 1)
        }
    }
}
