import Foundation

/// Which rows a search reads: SQL narrows by clear columns and blind-index hashes; the engine decides exactly
/// after decrypting.
struct CandidateFilter {
    var itemClass: ItemClass?
    var uuid: Data?
    var synchronizable: Bool?
    var protectionClass: ProtectionClass?
    /// The group hashes a row may have, or `nil` for any group.
    var groupHashes: [Data]?
    /// Blind-index hashes a row must have.
    var indexHashes: [(AttributeKey, Data)] = []
    /// Primary-key hashes, one of which a row must have (the caller's groups × the query's key).
    var primaryKeyHashes: [Data]?
}

/// The SQL of item rows. Every write bumps the change sequence; uniqueness is the database's (a UNIQUE index on
/// the primary-key hash of live rows), never a read-then-write.
final class ItemStore {
    let database: Database
    private var candidateStatements = CandidateStatements()

    init(database: Database) {
        self.database = database
    }

    private static let nextSequence = "(SELECT IFNULL(MAX(seq), 0) + 1 FROM items)"

    /// Inserts a new row; a duplicate primary key throws ``EngineError/Code/duplicateItem``.
    func insert(_ item: StoredItem) throws(EngineError) {
        try database.run(
            """
            INSERT INTO items (uuid, class, pdmn, sync, agrp, pk, svce, acct, srvr, seq, mdat, wrapped_key, metadata,
                secret)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, \(Self.nextSequence), ?, ?, ?, ?)
            """,
            [.blob(PersistentReference.bytes(of: item.uuid))] + Self.values(of: item))
    }

    /// Rewrites a row in place (its UUID stays); a duplicate primary key throws
    /// ``EngineError/Code/duplicateItem``.
    func replace(rowID: Int64, with item: StoredItem) throws(EngineError) {
        try database.run(
            """
            UPDATE items SET class = ?, pdmn = ?, sync = ?, agrp = ?, pk = ?, svce = ?, acct = ?, srvr = ?,
                seq = \(Self.nextSequence), mdat = ?, wrapped_key = ?, metadata = ?, secret = ?
            WHERE rowid = ?
            """,
            Self.values(of: item) + [.integer(rowID)])
    }

    /// Deletes a row.
    func delete(rowID: Int64) throws(EngineError) {
        try database.run("DELETE FROM items WHERE rowid = ?", [.integer(rowID)])
    }

    /// Turns a synchronizable row into a tombstone: its secret is dropped, its identity stays for sync.
    func tombstone(rowID: Int64, at time: Date) throws(EngineError) {
        try database.run(
            "UPDATE items SET tomb = 1, secret = NULL, mdat = ?, seq = \(Self.nextSequence) WHERE rowid = ?",
            [.real(time.timeIntervalSince1970), .integer(rowID)])
    }

    /// Reads live candidate rows in insertion order until `body` returns `false`.
    func candidates(
        _ filter: CandidateFilter, _ body: (StoredRow) throws(EngineError) -> Bool
    ) throws(EngineError) {
        var bindings: [SQLValue] = []
        bindings.reserveCapacity(8)
        if let itemClass = filter.itemClass { bindings.append(.text(itemClass.rawValue)) }
        if let uuid = filter.uuid { bindings.append(.blob(uuid)) }
        if let synchronizable = filter.synchronizable { bindings.append(.integer(synchronizable ? 1 : 0)) }
        if let protectionClass = filter.protectionClass { bindings.append(.text(protectionClass.rawValue)) }
        if let groups = filter.groupHashes { bindings += groups.map { .blob($0) } }
        if let keys = filter.primaryKeyHashes { bindings += keys.map { .blob($0) } }
        bindings += filter.indexHashes.map { .blob($0.1) }
        let statement = try candidateStatements.statement(for: filter, in: database)
        try database.query(statement, bindings) { (row: Row) throws(EngineError) -> Bool in
            try body(try StoredRow(row))
        }
    }

    private static func values(of item: StoredItem) -> [SQLValue] {
        func hash(_ attribute: AttributeKey) -> SQLValue {
            item.indexHashes[attribute].map { .blob($0) } ?? .null
        }
        return [
            .text(item.itemClass.rawValue), .text(item.protectionClass.rawValue), .integer(item.synchronizable ? 1 : 0),
            .blob(item.groupHash), .blob(item.primaryKeyHash), hash(.service), hash(.account), hash(.server),
            .real(item.modificationTime), .blob(item.wrappedKey), .blob(item.metadata),
            item.secret.map { .blob($0) } ?? .null,
        ]
    }
}

/// The SELECT of each shape of candidate filter, built and prepared once: the hot path does no string work.
private struct CandidateStatements {
    private var cache: [Int: Statement] = [:]

    mutating func statement(for filter: CandidateFilter, in database: Database) throws(EngineError) -> Statement {
        let shape = Self.shape(of: filter)
        if let statement = cache[shape] { return statement }
        let statement = try database.prepared(Self.build(filter))
        cache[shape] = statement
        return statement
    }

    /// Everything the SQL text depends on, packed into an integer (bindings are not part of it).
    private static func shape(of filter: CandidateFilter) -> Int {
        var shape = 0
        if filter.itemClass != nil { shape |= 1 }
        if filter.uuid != nil { shape |= 1 << 1 }
        if filter.synchronizable != nil { shape |= 1 << 2 }
        if filter.protectionClass != nil { shape |= 1 << 3 }
        for (attribute, _) in filter.indexHashes {
            shape |= 1 << (4 + (BlindIndex.indexedAttributes.firstIndex(of: attribute) ?? 0))
        }
        if let groups = filter.groupHashes { shape |= (groups.count + 1) << 8 }
        if let keys = filter.primaryKeyHashes { shape |= (keys.count + 1) << 20 }
        return shape
    }

    private static func build(_ filter: CandidateFilter) -> String {
        var conditions = ["tomb = 0"]
        if filter.itemClass != nil { conditions.append("class = ?") }
        if filter.uuid != nil { conditions.append("uuid = ?") }
        if filter.synchronizable != nil { conditions.append("sync = ?") }
        if filter.protectionClass != nil { conditions.append("pdmn = ?") }
        if let groups = filter.groupHashes {
            // With a narrower hash or a UUID at hand, `+agrp` keeps SQLite off the (broad) group index.
            let column = filter.indexHashes.isEmpty && filter.uuid == nil ? "agrp" : "+agrp"
            let placeholders = Array(repeating: "?", count: groups.count).joined(separator: ", ")
            conditions.append(groups.count == 1 ? "\(column) = ?" : "\(column) IN (\(placeholders))")
        }
        if let keys = filter.primaryKeyHashes {
            conditions.append(
                keys.count == 1
                    ? "pk = ?" : "pk IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))")
        }
        for (attribute, _) in filter.indexHashes { conditions.append("\(attribute.rawValue) = ?") }
        return "SELECT \(StoredRow.columns) FROM items WHERE \(conditions.joined(separator: " AND ")) ORDER BY rowid"
    }
}
