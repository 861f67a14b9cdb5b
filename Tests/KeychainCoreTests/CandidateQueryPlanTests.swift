import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// The plans SQLite makes of the candidate queries (``ItemStore/candidateSQL(_:)``) on a real keychain's schema.
@Suite("Candidate queries: the plan SQLite runs for each shape")
struct CandidateQueryPlanTests {
    /// The plan's lines (`EXPLAIN QUERY PLAN`), the parameters left unbound.
    private func plan(_ filter: CandidateFilter, in keychain: TestKeychain) throws -> [String] {
        let database = try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
        var lines: [String] = []
        try database.query("EXPLAIN QUERY PLAN " + ItemStore.candidateSQL(filter)) { row in
            lines.append(row.text(3))
            return true
        }
        return lines
    }

    @Test("An exact lookup reads its one row through the primary-key index, with no sort; several keys keep row order")
    func exactLookupIsNotSorted() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        var one = CandidateFilter(itemClass: .genericPassword)
        one.primaryKeyHashes = [Data(count: 32)]
        let exact = try plan(one, in: keychain)
        #expect(exact.contains { $0.contains("items_primary_key") }, "\(exact)")
        #expect(!exact.contains { $0.contains("TEMP B-TREE") }, "\(exact)")

        var several = one
        several.primaryKeyHashes = [Data(count: 32), Data(repeating: 1, count: 32)]
        #expect(ItemStore.candidateSQL(several).hasSuffix(" ORDER BY rowid"))
        #expect(try plan(several, in: keychain).contains { $0.contains("items_primary_key") })
    }
}
