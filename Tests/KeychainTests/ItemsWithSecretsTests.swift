import Foundation
import TestSupport
import Testing

@testable import Keychain

@Suite("Items with their secrets in one request")
struct ItemsWithSecretsTests {
    @Test("Each matching item comes with its own secret; none matching is an empty list", arguments: Storage.allCases)
    func secrets(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        try keychain.add(GenericPassword(account: "alice", service: "mail"), secret: Data("a-pw".utf8))
        try keychain.add(GenericPassword(account: "bob", service: "mail"), secret: Data("b-pw".utf8))
        try keychain.add(GenericPassword(account: "carol", service: "chat"), secret: Data("c-pw".utf8))
        try keychain.add(InternetPassword(account: "dave", server: "example.com"), secret: Data("d-pw".utf8))

        let mail = try #require(try keychain.itemsWithSecrets(matching: GenericPassword.Query(service: "mail")))
        #expect(
            Dictionary(uniqueKeysWithValues: mail.map { ($0.item.account, $0.secret) })
                == ["alice": Data("a-pw".utf8), "bob": Data("b-pw".utf8)])
        let web = try #require(try keychain.itemsWithSecrets(matching: InternetPassword.Query(server: "example.com")))
        #expect(web.map(\.item.account) == ["dave"] && web.map(\.secret) == [Data("d-pw".utf8)])
        #expect(try keychain.itemsWithSecrets(matching: GenericPassword.Query(service: "none"))?.isEmpty == true)
    }

    @Test("An item with access control among the matches: nil, and nothing asked (its secret is read alone)")
    func accessControlled() async throws {
        let keychain = try TestKeychain(.directory).keychain
        try await keychain.setPasscode("2468")
        let prompter = ScriptedPrompter([.type("2468")])
        let protected = keychain.authenticationContext(scriptedContext(prompter))
        var alice = GenericPassword(account: "alice", service: "mail")
        alice.accessControl = [.userPresence]
        let item = try await protected.add(alice, secret: Data("a-pw".utf8))
        try await keychain.add(GenericPassword(account: "bob", service: "mail"), secret: Data("b-pw".utf8))

        #expect(try await protected.itemsWithSecrets(matching: GenericPassword.Query(service: "mail")) == nil)
        #expect(prompter.asked.isEmpty)
        #expect(
            try await keychain.itemsWithSecrets(matching: GenericPassword.Query(account: "bob", service: "mail"))?
                .map(\.secret) == [Data("b-pw".utf8)])
        #expect(try await protected.secret(for: item) == Data("a-pw".utf8))
        #expect(prompter.asked.count == 1)
    }
}
