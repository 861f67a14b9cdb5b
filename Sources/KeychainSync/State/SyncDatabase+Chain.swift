import Foundation
import KeychainCore

/// Each author's chain as this device has verified it (issue 21, item 1), kept apart from the entries so that it
/// outlives them (a compaction or a resync deletes entries; their places in the chain stay known), and the authors
/// refused for breaking theirs.
extension SyncDatabase {
    /// One verified place of an author's log.
    struct Link: Equatable {
        var sequence: Int64
        var hash: Data
        var clock: HybridTime
        /// The hash the entry names as its author's previous one, `nil` for an entry of the first format.
        var previous: Data?
    }

    /// Creates the chain's tables when missing (sync state made before them) and fills them from the kept entries.
    func ensureChainSchema() throws(SyncError) {
        let exists = try Self.sql("cannot read the sync state") { () throws(EngineError) -> Bool in
            try database.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'links'") { _ in true }
                ?? false
        }
        guard !exists else { return }
        try transaction { () throws(SyncError) in
            try Self.sql("cannot extend the sync state") { () throws(EngineError) in
                try database.execute(
                    """
                    CREATE TABLE links(
                        author TEXT NOT NULL, sequence INTEGER NOT NULL, hash BLOB NOT NULL, clock INTEGER NOT NULL,
                        previous BLOB, PRIMARY KEY(author, sequence)) WITHOUT ROWID;
                    CREATE TABLE refusals(author TEXT PRIMARY KEY, sequence INTEGER NOT NULL, reason TEXT NOT NULL);
                    """)
            }
            for stored in try entries() {
                let name = RecordName.log(stored.author, stored.sequence)
                let previous = (try? SignedRecord.unverifiedBody(LogEntry.self, stored.bytes, name: name))?.previous
                try saveLink(
                    author: stored.author,
                    Link(
                        sequence: stored.sequence, hash: try EntryHash.of(stored.bytes), clock: stored.clock,
                        previous: previous))
            }
        }
    }

    /// Records a verified place of `author`'s log.
    func saveLink(author: String, _ link: Link) throws(SyncError) {
        try Self.sql("cannot write the sync state") { () throws(EngineError) in
            try database.run(
                "INSERT OR IGNORE INTO links(author, sequence, hash, clock, previous) VALUES(?, ?, ?, ?, ?)",
                [
                    .text(author), .integer(link.sequence), .blob(link.hash), .integer(link.clock.rawValue),
                    link.previous.map { .blob($0) } ?? .null,
                ])
        }
    }

    /// The place of `author`'s log at `sequence`, or its nearest kept neighbour below or above it.
    func link(of author: String, at sequence: Int64, _ direction: LinkDirection = .at) throws(SyncError) -> Link? {
        let (condition, order) =
            switch direction {
            case .at: ("sequence = ?", "")
            case .below: ("sequence < ?", " ORDER BY sequence DESC")
            case .above: ("sequence > ?", " ORDER BY sequence ASC")
            }
        return try Self.sql("cannot read the sync state") { () throws(EngineError) -> Link? in
            try database.first(
                "SELECT sequence, hash, clock, previous FROM links WHERE author = ? AND \(condition)\(order) LIMIT 1",
                [.text(author), .integer(sequence)]
            ) { row in
                Link(
                    sequence: row.integer(0), hash: row.blob(1) ?? Data(), clock: HybridTime(rawValue: row.integer(2)),
                    previous: row.isNull(3) ? nil : (row.blob(3) ?? Data()))
            }
        }
    }

    /// Where to look for a link.
    enum LinkDirection {
        case at, below, above
    }

    /// Refuses `author` from `sequence` on (its entries there and after count for nothing), for `reason`; an
    /// earlier refusal of it stands.
    func refuse(_ author: String, from sequence: Int64, reason: String) throws(SyncError) {
        try Self.sql("cannot write the sync state") { () throws(EngineError) in
            try database.run(
                """
                INSERT INTO refusals(author, sequence, reason) VALUES(?, ?, ?)
                ON CONFLICT(author) DO UPDATE SET sequence = excluded.sequence, reason = excluded.reason
                WHERE excluded.sequence < refusals.sequence
                """, [.text(author), .integer(sequence), .text(reason)])
        }
    }

    /// The refused authors: from which sequence, and why.
    func refusals() throws(SyncError) -> [String: (sequence: Int64, reason: String)] {
        var result: [String: (sequence: Int64, reason: String)] = [:]
        try Self.sql("cannot read the sync state") { () throws(EngineError) in
            try database.query("SELECT author, sequence, reason FROM refusals") { row in
                result[row.text(0)] = (row.integer(1), row.text(2))
                return true
            }
        }
        return result
    }
}
