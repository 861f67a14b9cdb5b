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
    /// Search-term hashes a row must all have (``AttributeKey/searchTerms``).
    var termHashes: [Data] = []
    /// Primary-key hashes, one of which a row must have (the caller's groups × the query's key). An exact lookup:
    /// SQL then reads every row the index gives for them, and the class, synchronizable and protection-class
    /// filters are the caller's to check against the authenticated row, so damage to a clear column is reported,
    /// not hidden as "not found".
    var primaryKeyHashes: [Data]?
    /// Only rows after this one (a page cursor, ``ItemQuery/startingAfter``).
    var afterRowID: Int64?

    /// Whether SQL filters by the clear columns (class, synchronizable, protection class).
    var filtersClearColumns: Bool { primaryKeyHashes == nil }
}

/// The SQL of item rows. Every write takes the next change sequence and leaves a change record (``ChangeLog``);
/// uniqueness is the database's (a UNIQUE index on the primary-key hash of live rows), never a read-then-write.
final class ItemStore {
    let database: Database
    let changeLog: ChangeLog
    private var candidateStatements = CandidateStatements()

    init(database: Database, changeLog: ChangeLog) {
        self.database = database
        self.changeLog = changeLog
    }

    /// The SELECT that reads the rows a filter selects, as ``candidates(_:_:)`` runs it.
    static func candidateSQL(_ filter: CandidateFilter) -> String {
        CandidateStatements.build(filter)
    }

    /// Inserts a new row sealed with the log's next sequence; a duplicate primary key throws
    /// ``EngineError/Code/duplicateItem``.
    func insert(_ item: StoredItem) throws(EngineError) {
        try database.run(Self.insertion, [.blob(PersistentReference.bytes(of: item.uuid))] + Self.values(of: item))
        if !item.termHashes.isEmpty { try writeTerms(item.termHashes, of: database.lastInsertedRowID) }
        try changeLog.record(Self.change(.added, item))
    }

    /// Rewrites a row in place as a new version (its UUID stays): an update, or a tombstone (`kind` removed); a
    /// duplicate primary key throws ``EngineError/Code/duplicateItem``.
    func replace(rowID: Int64, with item: StoredItem, kind: ChangeKind = .updated) throws(EngineError) {
        // SQLite rewrites the entries of every index on a column an UPDATE names, changed or not: a new version
        // names only the indexed columns whose value changes (an update of a secret: none), and its lookup terms
        // are written again only when they change, so it writes a few pages instead of one per index.
        let values = Self.values(of: item)
        let unchanged = try database.first(Self.indexedSelection, [.integer(rowID)]) { row in
            Self.indexedPositions.enumerated().compactMap { column, position in
                row.holds(values[position], at: Int32(column)) ? position : nil
            }
        }
        guard let unchanged else { throw .internalError("the row to replace is gone") }
        var assignments: [String] = []
        var bindings: [SQLValue] = []
        for (position, column) in Self.valueColumns.enumerated() where !unchanged.contains(position) {
            assignments.append("\(column) = ?")
            bindings.append(values[position])
        }
        try database.run(
            "UPDATE items SET \(assignments.listed(separator: ", ")) WHERE rowid = ?", bindings + [.integer(rowID)])
        if item.itemClass == .key { KeyOperations.forgetPreparedKeys() }
        if try storedTerms(of: rowID) != Set(item.termHashes) {
            try database.run("DELETE FROM item_terms WHERE item = ?", [.integer(rowID)])
            try writeTerms(item.termHashes, of: rowID)
        }
        try changeLog.record(Self.change(kind, item))
    }

    /// The columns ``values(of:)`` gives, in its order.
    private static let valueColumns = [
        "class", "pdmn", "sync", "agrp", "pk", "svce", "acct", "srvr", "mdat", "wrapped_key", "metadata", "secret",
        "tomb", "seq", "acl",
    ]
    /// The places in ``valueColumns`` of the columns an index covers or a partial index's condition reads.
    private static let indexedPositions = [0, 3, 4, 5, 6, 7, 12]
    /// A new row.
    private static let insertion =
        "INSERT INTO items (uuid, \(valueColumns.listed(separator: ", ")))"
        + " VALUES (?, \(Array(repeating: "?", count: valueColumns.count).listed(separator: ", ")))"
    /// A row's indexed columns, in ``indexedPositions`` order.
    private static let indexedSelection =
        "SELECT \(indexedPositions.map { valueColumns[$0] }.listed(separator: ", ")) FROM items WHERE rowid = ?"

    /// The lookup terms stored for a row.
    private func storedTerms(of rowID: Int64) throws(EngineError) -> Set<Data> {
        var terms = Set<Data>()
        try database.query("SELECT term FROM item_terms WHERE item = ?", [.integer(rowID)]) { row in
            if let term = row.blob(0) { terms.insert(term) }
            return true
        }
        return terms
    }

    /// The rows of `item_terms` of a row (a row's go with it when it is deleted: a trigger).
    private func writeTerms(_ hashes: [Data], of rowID: Int64) throws(EngineError) {
        for hash in hashes {
            try database.run(
                "INSERT OR IGNORE INTO item_terms (term, item) VALUES (?, ?)", [.blob(hash), .integer(rowID)])
        }
    }

    /// Deletes a row, recording its removal (with its access group when the caller read it).
    func delete(rowID: Int64, accessGroup: String? = nil, at time: Date) throws(EngineError) {
        try changeLog.remove(rowID: rowID, accessGroup: accessGroup, at: time)
    }

    /// The row id of the live item with these UUID bytes, if one is stored.
    func rowID(ofUUID uuid: Data) throws(EngineError) -> Int64? {
        try database.first("SELECT rowid FROM items WHERE uuid = ? AND tomb = 0", [.blob(uuid)]) { $0.integer(0) }
    }

    /// Reads live candidate rows in insertion order until `body` returns `false`.
    func candidates(
        _ filter: CandidateFilter, _ body: (StoredRow) throws(EngineError) -> Bool
    ) throws(EngineError) {
        var bindings: [SQLValue] = []
        bindings.reserveCapacity(8)
        let clear = filter.filtersClearColumns
        if clear, let itemClass = filter.itemClass { bindings.append(.text(itemClass.rawValue)) }
        if let uuid = filter.uuid { bindings.append(.blob(uuid)) }
        if clear, let synchronizable = filter.synchronizable { bindings.append(.integer(synchronizable ? 1 : 0)) }
        if clear, let protectionClass = filter.protectionClass { bindings.append(.text(protectionClass.rawValue)) }
        if let groups = filter.groupHashes { bindings += groups.map { .blob($0) } }
        if let keys = filter.primaryKeyHashes { bindings += keys.map { .blob($0) } }
        bindings += filter.indexHashes.map { .blob($0.1) }
        bindings += filter.termHashes.map { .blob($0) }
        if let after = filter.afterRowID { bindings.append(.integer(after)) }
        let statement = try candidateStatements.statement(for: filter, in: database)
        try database.query(statement, bindings) { (row: Row) throws(EngineError) -> Bool in
            try body(try StoredRow(row))
        }
    }

    /// Reads every row, tombstones included, in insertion order, for verification: each as its row id, its UUID
    /// bytes (when readable) and the parsed row or why its clear columns cannot be read.
    func allRows(
        _ body: (Int64, Data?, Result<StoredRow, EngineError>) throws(EngineError) -> Void
    ) throws(EngineError) {
        try database.query("SELECT \(StoredRow.columns) FROM items ORDER BY rowid") {
            (row: Row) throws(EngineError) -> Bool in
            let parsed: Result<StoredRow, EngineError>
            do throws(EngineError) {
                parsed = .success(try StoredRow(row))
            } catch {
                parsed = .failure(error)
            }
            try body(row.integer(0), row.blob(1), parsed)
            return true
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
            item.secret.map { .blob($0) } ?? .null, .integer(item.isTombstone ? 1 : 0), .integer(item.sequence),
            .integer(Int64(item.accessFlags)),
        ]
    }

    private static func change(_ kind: ChangeKind, _ item: StoredItem) -> ChangeRecord {
        ChangeRecord(
            sequence: item.sequence, kind: kind, uuid: PersistentReference.bytes(of: item.uuid),
            itemClass: item.itemClass.rawValue, protectionClass: item.protectionClass.rawValue,
            synchronizable: item.synchronizable, groupHash: item.groupHash, modificationTime: item.modificationTime,
            accessGroup: item.accessGroup, primaryKeyHash: item.primaryKeyHash)
    }
}

/// The SELECT of each shape of candidate filter, built and prepared once: the hot path does no string work.
///
/// The few shapes a process uses are kept in a list, not a dictionary, and the SQL text is put together by hand
/// (not `joined(separator:)`): each of those generic uses costs a short-lived process (a `security` command) a
/// search of every protocol conformance in its binary the first time.
private struct CandidateStatements {
    private var cache: [(shape: Int, statement: Statement)] = []

    mutating func statement(for filter: CandidateFilter, in database: Database) throws(EngineError) -> Statement {
        let shape = Self.shape(of: filter)
        for entry in cache where entry.shape == shape { return entry.statement }
        let statement = try database.prepared(Self.build(filter))
        cache.append((shape, statement))
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
        shape |= filter.termHashes.count << 32
        if filter.afterRowID != nil { shape |= 1 << 48 }
        return shape
    }

    fileprivate static func build(_ filter: CandidateFilter) -> String {
        // With the primary-key hash, `tomb = 0` only selects the partial unique index (SQLite does not test it
        // again on the row), so a row whose tomb flag was damaged still comes back and fails authentication.
        var conditions = ["tomb = 0"]
        let clear = filter.filtersClearColumns
        if clear, filter.itemClass != nil { conditions.append("class = ?") }
        if filter.uuid != nil { conditions.append("uuid = ?") }
        if clear, filter.synchronizable != nil { conditions.append("sync = ?") }
        if clear, filter.protectionClass != nil { conditions.append("pdmn = ?") }
        if let groups = filter.groupHashes {
            // With a narrower hash or a UUID at hand, `+agrp` keeps SQLite off the (broad) class-and-group index.
            // Without a class (backup, the plaintext scan) no index has the group first: the table is read in row order.
            let column = filter.indexHashes.isEmpty && filter.uuid == nil ? "agrp" : "+agrp"
            conditions.append(groups.count == 1 ? "\(column) = ?" : "\(column) IN (\(placeholders(groups.count)))")
        }
        if let keys = filter.primaryKeyHashes {
            conditions.append(keys.count == 1 ? "pk = ?" : "pk IN (\(placeholders(keys.count)))")
        }
        for (attribute, _) in filter.indexHashes { conditions.append("\(attribute.rawValue) = ?") }
        for _ in filter.termHashes { conditions.append("rowid IN (SELECT item FROM item_terms WHERE term = ?)") }
        if filter.afterRowID != nil { conditions.append("rowid > ?") }
        // One primary-key hash finds one live row at most (the unique index on live rows' hashes): nothing to order.
        // SQLite does not see that through the partial index, and would pass the row, blobs and all, through a sort.
        let order = filter.primaryKeyHashes?.count == 1 ? "" : " ORDER BY rowid"
        return "SELECT \(StoredRow.columns) FROM items WHERE \(conditions.listed(separator: " AND "))\(order)"
    }

    /// `count` SQL placeholders, separated by commas.
    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).listed(separator: ", ")
    }
}

extension [String] {
    /// The parts separated by `separator`: what `joined(separator:)` does, without the runtime's search of every
    /// protocol conformance in the binary that its first use costs a short-lived process.
    fileprivate func listed(separator: String) -> String {
        var text = ""
        for (index, part) in enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
    }
}
