import Foundation

/// How much of the store a keychain takes: what keychaind's per-user quotas count.
package struct StorageUsage: Sendable, Equatable {
    /// Items (tombstones of deleted synchronizable items not counted).
    package var items: Int
    /// Bytes of the database's pages in use (its free pages, which new rows reuse, not counted).
    package var bytes: Int

    package init(items: Int, bytes: Int) {
        self.items = items
        self.bytes = bytes
    }
}

extension Engine {
    /// The keychain's usage now: a count of its items, and its pages in use.
    package func storageUsage() throws(EngineError) -> StorageUsage {
        try state.withLock { (state) throws(EngineError) -> StorageUsage in try Self.storageUsage(of: state.database) }
    }

    /// What `database` holds: its live items and the bytes its pages take.
    static func storageUsage(of database: Database) throws(EngineError) -> StorageUsage {
        let items = try database.first("SELECT COUNT(*) FROM items WHERE tomb = 0") { $0.integer(0) } ?? 0
        let pages = try database.first("PRAGMA page_count") { $0.integer(0) } ?? 0
        let free = try database.first("PRAGMA freelist_count") { $0.integer(0) } ?? 0
        let size = try database.first("PRAGMA page_size") { $0.integer(0) } ?? 0
        return StorageUsage(items: Int(items), bytes: Int((pages - free) * size))
    }
}
