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
}

/// The SQL of item rows. Every write bumps the change sequence; uniqueness is the database's (a UNIQUE index on
/// the primary-key hash of live rows), never a read-then-write.
struct ItemStore {
    let database: Database

    private static let nextSequence = "(SELECT IFNULL(MAX(seq), 0) + 1 FROM items)"

    /// Inserts a new row; a duplicate primary key throws ``EngineError/Code/duplicateItem``.
    func insert(_ item: StoredItem) throws(EngineError) {
        try database.run(
            """
            INSERT INTO items (uuid, class, pdmn, sync, agrp, pk, svce, acct, srvr, seq, mdat, wrapped_key, metadata,
                secret)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, \(Self.nextSequence), ?, ?, ?, ?)
            """,
            [.blob(item.uuid)] + Self.values(of: item))
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
        var conditions = ["tomb = 0"]
        var bindings: [SQLValue] = []
        if let itemClass = filter.itemClass {
            conditions.append("class = ?")
            bindings.append(.text(itemClass.rawValue))
        }
        if let uuid = filter.uuid {
            conditions.append("uuid = ?")
            bindings.append(.blob(uuid))
        }
        if let synchronizable = filter.synchronizable {
            conditions.append("sync = ?")
            bindings.append(.integer(synchronizable ? 1 : 0))
        }
        if let protectionClass = filter.protectionClass {
            conditions.append("pdmn = ?")
            bindings.append(.text(protectionClass.rawValue))
        }
        if let groups = filter.groupHashes {
            // With a narrower hash or a UUID at hand, `+agrp` keeps SQLite off the (broad) group index.
            let column = filter.indexHashes.isEmpty && filter.uuid == nil ? "agrp" : "+agrp"
            let placeholders = Array(repeating: "?", count: groups.count).joined(separator: ", ")
            conditions.append(groups.count == 1 ? "\(column) = ?" : "\(column) IN (\(placeholders))")
            bindings += groups.map { .blob($0) }
        }
        for (attribute, hash) in filter.indexHashes {
            conditions.append("\(attribute.rawValue) = ?")
            bindings.append(.blob(hash))
        }
        let sql = "SELECT \(StoredRow.columns) FROM items WHERE \(conditions.joined(separator: " AND ")) ORDER BY rowid"
        try database.query(sql, bindings) { (row: Row) throws(EngineError) -> Bool in
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
