import Foundation
import KeychainSync
import TestSupport
import Testing

/// The store conformance checks (StoreConformance) on a folder store.
@Suite
struct FolderStoreConformanceTests {
    @Test func putIfAbsentNeverOverwrites() throws {
        try StoreConformance.putIfAbsentNeverOverwrites(try FolderFixture())
    }

    @Test func putAllIfAbsentStopsAtTheFirstTakenName() throws {
        try StoreConformance.putAllIfAbsentStopsAtTheFirstTakenName(try FolderFixture())
    }

    @Test func concurrentPutIfAbsentHasOneWinner() throws {
        try StoreConformance.concurrentPutIfAbsentHasOneWinner(try FolderFixture())
    }

    @Test func listIsOrderedByBytesAndFiltersByPrefix() throws {
        try StoreConformance.listIsOrderedByBytesAndFiltersByPrefix(try FolderFixture())
    }

    @Test func invalidNamesAreRejectedByName() throws {
        try StoreConformance.invalidNamesAreRejectedByName(try FolderFixture())
    }

    @Test func getOfMissingIsNil() throws { try StoreConformance.getOfMissingIsNil(try FolderFixture()) }

    @Test func getManyGivesWhatGetGives() throws { try StoreConformance.getManyGivesWhatGetGives(try FolderFixture()) }

    @Test func deleteIsIdempotent() throws { try StoreConformance.deleteIsIdempotent(try FolderFixture()) }

    @Test func bytesAreStoredVerbatim() throws { try StoreConformance.bytesAreStoredVerbatim(try FolderFixture()) }

    @Test func watchSeesOtherInstanceAndStopsWhenCancelled() throws {
        try StoreConformance.watchSeesOtherInstanceAndStopsWhenCancelled(try FolderFixture())
    }

    @Test func watchCanBeCancelledFromItsCallback() throws {
        try StoreConformance.watchCanBeCancelledFromItsCallback(try FolderFixture())
    }
}
