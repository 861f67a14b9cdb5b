import Foundation

/// What ``Engine/verify()`` found: every damaged item by persistent reference, and what is wrong with the keychain
/// as a whole.
public struct VerificationReport: Sendable, Equatable, Codable {
    /// One item that is damaged, stale or missing.
    public struct DamagedItem: Sendable, Equatable, Codable {
        /// The item's persistent reference, when its class and UUID are readable.
        public var persistentReference: PersistentReference?
        /// The database row, when the item has one (a missing item has none).
        public var rowID: Int64?
        /// What is wrong with it.
        public var problem: String

        /// A damaged item (the engine's verification, and keychaind's wire).
        package init(persistentReference: PersistentReference?, rowID: Int64?, problem: String) {
            self.persistentReference = persistentReference
            self.rowID = rowID
            self.problem = problem
        }
    }

    /// An empty report, filled in by the verification (or read off keychaind's wire).
    package init() {}

    /// The rows read.
    public var itemCount = 0
    /// The change records read.
    public var changeCount = 0
    /// The items that are damaged, stale (an older version put back) or missing (deleted behind the engine's back).
    public var damagedItems: [DamagedItem] = []
    /// Keychain-wide problems: SQLite's integrity check, the change counter, the change log, the high-water mark.
    public var problems: [String] = []
    /// Rows whose protection class was locked, so their sealed contents could not be checked.
    public var lockedItemCount = 0

    /// Whether nothing is wrong (locked items unchecked do not count as wrong).
    public var isSound: Bool { damagedItems.isEmpty && problems.isEmpty }
}
