import Foundation
import Keychain
import TestSupport
import Testing

/// The description, comment, creator, type and generic attribute are query terms (issue 22, §4): the keychain
/// returns only the items they match, so a caller that wants one secret never has every candidate's decrypted.
@Suite("Query terms beyond the primary key")
struct QueryTermsTests {
    @Test("description, comment, creator, type and generic narrow a query", arguments: Storage.allCases)
    func narrowing(storage: Storage) throws {
        let keychain = try TestKeychain(storage).keychain
        var first = GenericPassword(account: "a", service: "svc", generic: Data("g1".utf8))
        first.itemDescription = "kind one"
        first.comment = "first"
        first.creator = 0x6162_6364
        first.type = 0x7071_7273
        var second = GenericPassword(account: "b", service: "svc", generic: Data("g2".utf8))
        second.itemDescription = "kind two"
        second.comment = "second"
        try keychain.add(first, secret: Data("1".utf8))
        try keychain.add(second, secret: Data("2".utf8))
        func accounts(_ edit: (inout GenericPassword.Query) -> Void) throws -> [String] {
            var query = GenericPassword.Query(service: "svc")
            edit(&query)
            return try keychain.items(matching: query).map(\.account).sorted()
        }
        #expect(try accounts { _ in } == ["a", "b"])
        #expect(try accounts { $0.itemDescription = "kind two" } == ["b"])
        #expect(try accounts { $0.comment = "first" } == ["a"])
        #expect(try accounts { $0.creator = 0x6162_6364 } == ["a"])
        #expect(try accounts { $0.type = 0x7071_7273 } == ["a"])
        #expect(try accounts { $0.generic = Data("g2".utf8) } == ["b"])
        #expect(try accounts { $0.comment = "nobody's" }.isEmpty)
        let found = try #require(
            try keychain.itemsWithSecrets(
                matching: {
                    var query = GenericPassword.Query(service: "svc"); query.comment = "second"; return query
                }(),
                limit: 2))
        #expect(found.map(\.secret) == [Data("2".utf8)])
    }
}
