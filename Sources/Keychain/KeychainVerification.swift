import Foundation
import KeychainCore

/// What ``Keychain/verify()-19w32`` found: the damaged items by persistent reference, and what is wrong with the
/// keychain as a whole.
public struct KeychainVerification: Sendable, Hashable, Codable {
    /// One damaged, stale or missing item.
    public struct DamagedItem: Sendable, Hashable, Codable {
        /// The item's persistent reference (its 20-byte form), when its class and identifier are readable.
        public var persistentReference: Data?
        /// The item's reference as text (`genp/UUID`), or its database row when it has no readable reference.
        public var name: String
        /// What is wrong with it.
        public var problem: String
    }

    /// How many items (rows, deletion records of synchronizable items included) were read.
    public var itemCount: Int
    /// The damaged items: altered, an older version put back, or missing.
    public var damagedItems: [DamagedItem]
    /// What is wrong with the keychain as a whole (its database structure, change counter or change log, or a
    /// rollback).
    public var problems: [String]
    /// Items whose accessibility the lock withholds, so their contents were not checked.
    public var lockedItemCount: Int

    /// Whether nothing is wrong.
    public var isSound: Bool { damagedItems.isEmpty && problems.isEmpty }

    init(_ report: VerificationReport) {
        itemCount = report.itemCount
        problems = report.problems
        lockedItemCount = report.lockedItemCount
        damagedItems = report.damagedItems.map { item in
            DamagedItem(
                persistentReference: item.persistentReference?.data,
                name: item.persistentReference?.description ?? "row \(item.rowID.map(String.init) ?? "?")",
                problem: item.problem)
        }
    }
}

extension Keychain {
    /// Checks every item and the keychain's own records (DESIGN §9): that each item authenticates, is its latest
    /// version and is where its index says, that no item is missing, and that the database is not older than its
    /// last acknowledged change. Reads only; items of a locked class are counted, not checked.
    public func verify() throws(KeychainError) -> KeychainVerification {
        try performOnKeybag("cannot verify the keychain") { (connection) throws(EngineError) -> KeychainVerification in
            KeychainVerification(try connection.backend().verify())
        }
    }
}
