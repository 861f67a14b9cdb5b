import Foundation
import KeychainSync
import TestSupport
import Testing

/// The store conformance checks (StoreConformance) on a PostgreSQL store, each in a database of its own on the
/// test process's shared server.
@Suite(.enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
struct PostgresStoreConformanceTests {
    @Test func putIfAbsentNeverOverwrites() throws {
        try StoreConformance.putIfAbsentNeverOverwrites(try PostgresFixture())
    }

    @Test func putAllIfAbsentStopsAtTheFirstTakenName() throws {
        try StoreConformance.putAllIfAbsentStopsAtTheFirstTakenName(try PostgresFixture())
    }

    @Test func concurrentPutIfAbsentHasOneWinner() throws {
        try StoreConformance.concurrentPutIfAbsentHasOneWinner(try PostgresFixture())
    }

    @Test func listIsOrderedByBytesAndFiltersByPrefix() throws {
        try StoreConformance.listIsOrderedByBytesAndFiltersByPrefix(try PostgresFixture())
    }

    @Test func invalidNamesAreRejectedByName() throws {
        try StoreConformance.invalidNamesAreRejectedByName(try PostgresFixture())
    }

    @Test func getOfMissingIsNil() throws { try StoreConformance.getOfMissingIsNil(try PostgresFixture()) }

    @Test func getManyGivesWhatGetGives() throws {
        try StoreConformance.getManyGivesWhatGetGives(try PostgresFixture())
    }

    @Test func deleteIsIdempotent() throws { try StoreConformance.deleteIsIdempotent(try PostgresFixture()) }

    @Test func bytesAreStoredVerbatim() throws { try StoreConformance.bytesAreStoredVerbatim(try PostgresFixture()) }

    @Test func watchSeesOtherInstanceAndStopsWhenCancelled() throws {
        try StoreConformance.watchSeesOtherInstanceAndStopsWhenCancelled(try PostgresFixture())
    }

    @Test func watchCanBeCancelledFromItsCallback() throws {
        try StoreConformance.watchCanBeCancelledFromItsCallback(try PostgresFixture())
    }
}
