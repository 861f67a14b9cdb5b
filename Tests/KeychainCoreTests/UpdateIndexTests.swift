import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// A new version writes only the index entries whose column changes (``ItemStore/replace(rowID:with:kind:)``):
/// each test changes one indexed column, or none, and checks that every lookup still finds the item where it now is
/// and nowhere it was, that a duplicate is still refused, and that verification finds nothing wrong.
@Suite("Updates rewrite only the index entries that change, and every lookup still holds")
struct UpdateIndexTests {
    private func accounts(in keychain: TestKeychain, _ attributes: ItemAttributes) throws -> [String] {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: attributes, limit: .all, returning: [.attributes])
        let items: [Item]
        do throws(EngineError) {
            items = try keychain.engine.copyMatching(query, for: app)
        } catch {
            if error.code == .itemNotFound { return [] }
            throw error
        }
        return items.compactMap { $0.attributes.string(.account) }
    }

    private func update(_ keychain: TestKeychain, _ account: String, _ changes: ItemChanges) throws {
        let query = ItemQuery(itemClass: .genericPassword, attributes: genp(account))
        _ = try keychain.engine.update(query, with: changes, for: app)
    }

    @Test("A secret-only update keeps every lookup; account and service changes move the item in their indexes")
    func lookupsFollowEachChange() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1", [.label: .string("first")])
        try keychain.engine.addPassword("b", "2")

        try update(keychain, "a", ItemChanges(data: Data("one".utf8)))
        #expect(try keychain.engine.password("a") == "one")
        #expect(try accounts(in: keychain, [.account: .string("a")]) == ["a"])
        #expect(try accounts(in: keychain, [.service: .string("svc")]).sorted() == ["a", "b"])
        #expect(try accounts(in: keychain, [.label: .string("first")]) == ["a"])

        try update(keychain, "a", ItemChanges(attributes: [.account: .string("c")]))
        #expect(try accounts(in: keychain, [.account: .string("a")]) == [])
        #expect(try accounts(in: keychain, [.account: .string("c")]) == ["c"])
        #expect(try keychain.engine.password("c") == "one")

        try update(keychain, "c", ItemChanges(attributes: [.service: .string("other")]))
        #expect(try accounts(in: keychain, [.service: .string("svc")]) == ["b"])
        #expect(try accounts(in: keychain, [.service: .string("other")]) == ["c"])
        #expect(try keychain.engine.password("c", service: "other") == "one")

        // The primary key moved with the account: the old one is free, the new one taken.
        try keychain.engine.addPassword("a", "again")
        #expect(throws: EngineError.self) {
            _ = try keychain.engine.update(
                ItemQuery(itemClass: .genericPassword, attributes: genp("b")),
                with: ItemChanges(attributes: [.account: .string("a")]), for: app)
        }
        #expect(try keychain.engine.password("b") == "2")

        let report = try keychain.engine.verify()
        #expect(report.damagedItems.isEmpty && report.problems.isEmpty, "\(report)")
    }
}
