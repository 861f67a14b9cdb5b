import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Search terms (`sktm`): each term has a blind index of its own, so a query naming some terms opens only the items
/// holding all of them — the Secret Service's search by any attribute of its maps never decrypts every item.
@Suite("Search terms: a blind index per term, subset matching, nothing in clear, only the holders opened")
struct SearchTermsTests {
    private func terms(_ list: String...) -> AttributeValue { SearchTerms.value(list) }

    private func query(_ value: AttributeValue) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword, attributes: [.searchTerms: value], limit: .all, returning: [.attributes])
    }

    @Test("A query finds the items holding every term it names, whatever else they hold")
    func subsetMatching() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1", [.searchTerms: terms("xdg:schema\0chrome", "application\0chromium")])
        try keychain.engine.addPassword("b", "2", [.searchTerms: terms("xdg:schema\0chrome", "application\0brave")])
        try keychain.engine.addPassword("c", "3", [.searchTerms: terms("xdg:schema\0git")])
        func accounts(_ value: AttributeValue) throws -> Set<String> {
            let items: [Item]
            do throws(EngineError) {
                items = try keychain.engine.copyMatching(query(value), for: app)
            } catch {
                if error.code == .itemNotFound { return [] }
                throw error
            }
            return Set(items.compactMap { $0.attributes.string(.account) })
        }
        #expect(try accounts(terms("xdg:schema\0chrome")) == ["a", "b"])
        #expect(try accounts(terms("xdg:schema\0chrome", "application\0brave")) == ["b"])
        #expect(try accounts(terms("xdg:schema\0git", "application\0brave")) == [])
        #expect(try accounts(terms("application\0")) == [])

        // An update that changes the terms moves the item in the index; a delete takes its terms with it.
        let update = ItemQuery(itemClass: .genericPassword, attributes: genp("c"))
        _ = try keychain.engine.update(
            update, with: ItemChanges(attributes: [.searchTerms: terms("xdg:schema\0chrome")]), for: app)
        #expect(try accounts(terms("xdg:schema\0chrome")) == ["a", "b", "c"])
        #expect(try accounts(terms("xdg:schema\0git")) == [])
        _ = try keychain.engine.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("a")), for: app)
        #expect(try accounts(terms("xdg:schema\0chrome")) == ["b", "c"])
        let left = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase().first(
            "SELECT COUNT(*) FROM item_terms"
        ) { $0.integer(0) }
        #expect(left == 3, "the deleted item's terms stayed in the index")
    }

    @Test("The index opens only the holders: every other row damaged, the search still answers (it never opened them)")
    func onlyHoldersOpened() throws {
        let keychain = try TestKeychain()
        for number in 0..<60 {
            let term = number % 20 == 0 ? "wanted\0yes" : "other\0\(number)"
            try keychain.engine.addPassword("item\(number)", "secret", [.searchTerms: terms(term)])
        }
        // Damage the sealed metadata of every row that does not hold the term, behind the engine's back: a search
        // that opened one of them would fail authentication.
        let damaged = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase().run(
            """
            UPDATE items SET metadata = zeroblob(length(metadata))
            WHERE rowid NOT IN (SELECT item FROM item_terms WHERE term IN (SELECT term FROM item_terms
                GROUP BY term HAVING COUNT(*) = 3))
            """)
        #expect(damaged == 57)
        let engine = try keychain.reopen()
        let found = try engine.copyMatching(query(terms("wanted\0yes")), for: app)
        #expect(Set(found.compactMap { $0.attributes.string(.account) }) == ["item0", "item20", "item40"])
        // A search that opened the damaged rows and matched none would answer their damage (errSecDecode); one
        // that opened none finds nothing.
        let absent = #expect(throws: EngineError.self) {
            try engine.copyMatching(query(terms("other\01", "wanted\0yes")), for: app)
        }
        #expect(absent?.code == .itemNotFound, "\(String(describing: absent))")
    }

    @Test("The database holds only the terms' keyed hashes, never a term in clear")
    func nothingInClear() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1", [.searchTerms: terms("distinctive-name\0distinctive-value")])
        let directory = keychain.directory.keychain
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let file = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(file.range(of: Data("distinctive-name".utf8)) == nil)
            #expect(file.range(of: Data("distinctive-value".utf8)) == nil)
        }
    }

    @Test("Malformed terms, too many or too long are errSecParam naming sktm, and store nothing")
    func malformedRefused() throws {
        let keychain = try TestKeychain()
        let malformed: [AttributeValue] = [
            .data(Data([9, 0, 0, 0, 65])), .data(Data([1, 0, 0, 0, 0xFF])), .string("text"),
            SearchTerms.value((0...SearchTerms.countLimit).map { "t\($0)" }),
            SearchTerms.value([String(repeating: "x", count: SearchTerms.byteLimit + 1)]),
        ]
        for value in malformed {
            let refusal = #expect(throws: EngineError.self) {
                try keychain.engine.addPassword("bad", "1", [.searchTerms: value])
            }
            #expect(
                refusal?.code == .param && refusal?.message.contains("sktm") == true, "\(String(describing: refusal))")
        }
        #expect(status { _ = try keychain.engine.password("bad") } == .itemNotFound)
    }
}
