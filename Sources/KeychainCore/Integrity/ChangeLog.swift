import Foundation

/// What a change did to an item.
enum ChangeKind: Int64 {
    case added = 1
    case updated = 2
    case removed = 3
}

/// One change record: the item's identity and the clear columns a locked keychain may reveal (DESIGN §9).
struct ChangeRecord {
    var sequence: Int64
    var kind: ChangeKind
    var uuid: Data
    var itemClass: String
    var protectionClass: String
    var synchronizable: Bool
    var groupHash: Data
    var modificationTime: Double
    /// The item's access group in clear, when known: stored sealed under the feed's group key (``GroupSeal``), so
    /// the feed can name and filter groups in every lock state. Not part of ``mac(key:)``: the seal binds itself
    /// to the record's sequence and UUID. `nil` for records older than schema 3 of items not written since.
    var accessGroup: String?
    /// The item's primary-key hash (its row's `pk`), so an exact lookup that finds no intact row can ask the log
    /// whether the item exists. Part of ``mac(key:)`` when present; `nil` in records older than schema 5 that the
    /// migration found no row for.
    var primaryKeyHash: Data?

    /// The columns ``init(_:)`` reads, in its order (the sealed group is read apart: it needs opening).
    static let columns = "seq, kind, uuid, class, pdmn, sync, agrp, mdat, pk"

    init(
        sequence: Int64, kind: ChangeKind, uuid: Data, itemClass: String, protectionClass: String,
        synchronizable: Bool, groupHash: Data, modificationTime: Double, accessGroup: String? = nil,
        primaryKeyHash: Data? = nil
    ) {
        self.sequence = sequence
        self.kind = kind
        self.uuid = uuid
        self.itemClass = itemClass
        self.protectionClass = protectionClass
        self.synchronizable = synchronizable
        self.groupHash = groupHash
        self.modificationTime = modificationTime
        self.accessGroup = accessGroup
        self.primaryKeyHash = primaryKeyHash
    }

    /// A record as stored, selected with ``columns`` (an unknown kind reads as added: its hash then fails).
    init(_ row: Row) {
        self.init(
            sequence: row.integer(0), kind: ChangeKind(rawValue: row.integer(1)) ?? .added, uuid: row.blob(2) ?? Data(),
            itemClass: row.text(3), protectionClass: row.text(4), synchronizable: row.integer(5) != 0,
            groupHash: row.blob(6) ?? Data(), modificationTime: row.real(7), primaryKeyHash: row.blob(8))
    }

    /// The record's keyed hash: an edited record fails it.
    func mac(key: SecretKey) throws(EngineError) -> Data {
        var input: [UInt8] = Array("change1".utf8)
        input.appendLittleEndian(sequence)
        input.appendLittleEndian(kind.rawValue)
        input.appendLengthPrefixed(uuid)
        input.appendLengthPrefixedUTF8(itemClass)
        input.appendLengthPrefixedUTF8(protectionClass)
        input.append(synchronizable ? 1 : 0)
        input.appendLengthPrefixed(groupHash)
        input.appendLittleEndian(modificationTime.bitPattern)
        if let primaryKeyHash { input.appendLengthPrefixed(primaryKeyHash) }
        return try KeyedHash.hash(input, key: key, outputByteCount: 16)
    }
}

/// The change log and its counter: every item write takes the next sequence number (strictly increasing, never
/// reused: the counter lives in the database and advances in the write's transaction) and leaves a record, and
/// each row binds its sequence into its associated data.
///
/// That makes staleness detectable: a row whose sequence is not the latest record of its item is an older copy put
/// back; a database whose counter is below the ``HighWaterMark`` was rolled back or lost WAL frames; a record
/// removed from the log breaks the count the counter seals. Not thread-safe: the engine serialises access.
final class ChangeLog: WriteTransactionObserver {
    let database: Database
    let key: SecretKey
    private let highWaterMark: HighWaterMark?
    /// Seals each record's access group (a key from the device key: readable in every lock state).
    let groupSeal: GroupSeal
    /// Called after each commit that recorded changes, with the last sequence it took (under the engine's lock:
    /// it must not block).
    var didCommit: @Sendable (Int64) -> Void = { _ in }
    /// The last sequence the current write transaction took.
    private var pendingSequence: Int64?
    /// The newest sequence when the current write transaction took its first.
    private var pendingStart: Int64 = 0
    /// Rows with a sequence at or below this were sealed before rows bound their sequence.
    let legacyCeiling: Int64

    /// Opens the log of `database`, whose counter is authenticated with `key`.
    init(database: Database, key: SecretKey, highWaterMark: HighWaterMark?) throws(EngineError) {
        self.database = database
        self.key = key
        self.highWaterMark = highWaterMark
        self.groupSeal = try GroupSeal(integrityKey: key)
        self.legacyCeiling = try IntegrityCounter.load(from: database, key: key).legacyCeiling
        database.writeObserver = self
    }

    /// The key that authenticates the counter, the log and the high-water mark, derived from the device key.
    static func integrityKey(deviceKey: SecretKey) throws(EngineError) -> SecretKey {
        try KeyedHash.deriveKey(from: deviceKey, context: "swift-keychain integrity v1")
    }

    // MARK: Writing

    /// The next sequence number. Only inside a write transaction.
    ///
    /// The newest change record holds the last sequence (compaction always keeps it), so the counter is read from
    /// the log itself, in pages the write touches anyway, and needs no row of its own rewritten by every write.
    func nextSequence() throws(EngineError) -> Int64 {
        guard database.isInTransaction else { throw .internalError("a change was made outside a write transaction") }
        let last: Int64
        if let pendingSequence {
            last = pendingSequence
        } else {
            last = try newestSequence()
            pendingStart = last
        }
        pendingSequence = last + 1
        return last + 1
    }

    /// Where the current transaction's sequence numbers stand, to put them back when a savepoint is rolled back
    /// (a group commit's refused write): the log keeps no gap.
    var pendingMark: (sequence: Int64?, start: Int64) { (pendingSequence, pendingStart) }

    /// Puts the transaction's sequence numbers back to a ``pendingMark``.
    func restore(_ mark: (sequence: Int64?, start: Int64)) {
        pendingSequence = mark.sequence
        pendingStart = mark.start
    }

    /// The sequence of the newest change record (0 for an empty log).
    func newestSequence() throws(EngineError) -> Int64 {
        try database.first("SELECT MAX(seq) FROM changes") { $0.isNull(0) ? 0 : $0.integer(0) } ?? 0
    }

    /// Records a change (its sequence from ``nextSequence()``).
    func record(_ change: ChangeRecord) throws(EngineError) {
        try database.run(
            """
            INSERT INTO changes (seq, uuid, kind, class, pdmn, sync, agrp, mdat, mac, grp, pk)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(change.sequence), .blob(change.uuid), .integer(change.kind.rawValue),
                .text(change.itemClass), .text(change.protectionClass), .integer(change.synchronizable ? 1 : 0),
                .blob(change.groupHash), .real(change.modificationTime), .blob(try change.mac(key: key)),
                try change.accessGroup.map { (group) throws(EngineError) -> SQLValue in
                    .blob(try groupSeal.seal(group, sequence: change.sequence, uuid: change.uuid))
                } ?? .null,
                change.primaryKeyHash.map { .blob($0) } ?? .null,
            ])
    }

    /// The access group of an item's latest record, when it names one (for a removal made from the clear
    /// columns alone: passcode removal, the erase).
    func latestAccessGroup(of uuid: Data) throws(EngineError) -> String? {
        let latest = try database.first(
            "SELECT seq, grp FROM changes WHERE uuid = ? ORDER BY seq DESC LIMIT 1", [.blob(uuid)]
        ) { row in (row.integer(0), row.blob(1)) }
        guard let (sequence, sealed) = latest, let sealed else { return nil }
        return try groupSeal.open(sealed, sequence: sequence, uuid: uuid)
    }

    /// Records the removal of the row `rowID` from its clear columns (nothing needs unlocking), then deletes it.
    /// The group comes from the item's latest record when the caller does not know it.
    func remove(rowID: Int64, accessGroup: String? = nil, at time: Date) throws(EngineError) {
        let sequence = try nextSequence()
        let change = try database.first(
            "SELECT uuid, class, pdmn, sync, agrp, pk FROM items WHERE rowid = ?", [.integer(rowID)]
        ) { row in
            ChangeRecord(
                sequence: sequence, kind: .removed, uuid: row.blob(0) ?? Data(), itemClass: row.text(1),
                protectionClass: row.text(2), synchronizable: row.integer(3) != 0, groupHash: row.blob(4) ?? Data(),
                modificationTime: time.timeIntervalSince1970, primaryKeyHash: row.blob(5))
        }
        guard var change else { throw .internalError("the row to remove is gone") }
        // A deleted key must not stay parsed in the key layer.
        if change.itemClass == ItemClass.key.rawValue { KeyOperations.forgetPreparedKeys() }
        if let accessGroup {
            change.accessGroup = accessGroup
        } else {
            change.accessGroup = try latestAccessGroup(of: change.uuid)
        }
        try record(change)
        try database.run("DELETE FROM items WHERE rowid = ?", [.integer(rowID)])
    }

    /// Removes every row of a protection class (every row when `nil`), recording each removal. For passcode
    /// removal (`akpu`) and the erase after too many wrong passcodes.
    func removeAll(of protectionClass: ProtectionClass?, at time: Date) throws(EngineError) {
        var rowIDs: [Int64] = []
        let pdmn: SQLValue = protectionClass.map { .text($0.rawValue) } ?? .null
        try database.query("SELECT rowid FROM items WHERE ?1 IS NULL OR pdmn = ?1", [pdmn]) { row in
            rowIDs.append(row.integer(0))
            return true
        }
        for rowID in rowIDs { try remove(rowID: rowID, at: time) }
    }

    /// Removes every item whose access control flags (the clear `acl` column) satisfy `condition`.
    func removeAll(where condition: (UInt32) -> Bool, at time: Date) throws(EngineError) {
        var rowIDs: [Int64] = []
        try database.query("SELECT rowid, acl FROM items WHERE acl != 0") { row in
            if condition(UInt32(truncatingIfNeeded: row.integer(1))) { rowIDs.append(row.integer(0)) }
            return true
        }
        for rowID in rowIDs { try remove(rowID: rowID, at: time) }
    }

    func transactionWillCommit() throws(EngineError) {
        guard let last = pendingSequence, last / Self.compactionInterval != pendingStart / Self.compactionInterval
        else { return }
        var counter = try IntegrityCounter.load(from: database, key: key)
        try compact(&counter, through: last, keepingLast: Self.compactionWindow)
        try counter.save(to: database, key: key)
    }

    func transactionDidEnd(committed: Bool) {
        if committed, let pendingSequence {
            highWaterMark?.raise(to: pendingSequence)
            didCommit(pendingSequence)
        }
        pendingSequence = nil
    }

    // MARK: Compaction

    /// Every change after the last this many keeps its record, whatever compaction does.
    static let compactionWindow: Int64 = 10_000
    /// Compaction runs in the transaction that carries the counter past a multiple of this.
    static let compactionInterval: Int64 = 1_000

    /// Deletes the records older than the last `window` changes (at least one) that no check needs: those a later
    /// record of the same item supersedes, and removals of items that left no row (a synchronizable item's
    /// tombstone keeps its removal record, as its row's latest version). Every item keeps its latest record, so a row put back after
    /// its record was compacted is still refused. Counted in the counter, which also moves its horizon.
    func compact(
        _ counter: inout IntegrityCounter, through sequence: Int64, keepingLast window: Int64
    ) throws(EngineError) {
        // What this keeps true each time it runs: every record at or below the counter's horizon that a record up to
        // the counter's sequence supersedes is gone (nothing else moves the counter's sequence, so it is where the
        // last run looked up to). So an older record can have become deletable only through a record numbered
        // after that sequence, or, above the old horizon, by being reached now; only these are examined, not every
        // record above the horizon (the window's ten thousand) again, with a lookup each, every thousand changes.
        let examined = counter.sequence
        counter.sequence = sequence
        // The newest record always stays: the open-time check reads the counter's own record.
        let horizon = sequence - max(window, 1)
        let superseded =
            "EXISTS (SELECT 1 FROM changes AS later WHERE later.uuid = changes.uuid AND later.seq > changes.seq)"
        let removal = "kind = \(ChangeKind.removed.rawValue)"
        let rowless = "NOT EXISTS (SELECT 1 FROM items WHERE items.uuid = changes.uuid)"
        // The older records of items changed since the last run (first: a later record that supersedes them may
        // itself go next). Run even when the horizon stays, so that what is above holds for the new sequence.
        var deleted = try database.run(
            """
            DELETE FROM changes WHERE seq <= ?1 AND uuid IN (SELECT uuid FROM changes WHERE seq > ?2)
                AND \(superseded)
            """, [.integer(counter.horizon), .integer(examined)])
        if horizon > counter.horizon {
            let bounds: [SQLValue] = [.integer(horizon), .integer(counter.horizon)]
            // The records the last run did not reach, and older removals whose row has gone.
            deleted +=
                try database.run(
                    "DELETE FROM changes WHERE seq <= ?1 AND seq > ?2 AND (\(superseded) OR (\(removal) AND \(rowless)))",
                    bounds)
                + database.run("DELETE FROM changes WHERE seq <= ?2 AND \(removal) AND \(rowless)", bounds)
            counter.horizon = horizon
        }
        counter.compacted += Int64(deleted)
    }

    /// Compacts now, keeping the last `window` changes whole (for tests and tools).
    func compactNow(keepingLast window: Int64) throws(EngineError) {
        try database.writeTransaction { () throws(EngineError) in
            var counter = try IntegrityCounter.load(from: database, key: key)
            try compact(&counter, through: try newestSequence(), keepingLast: window)
            try counter.save(to: database, key: key)
        }
    }

    // MARK: Checking

    /// Checks, before anything is served, that the database is not older than what it acknowledged: the counter
    /// authenticates, it is not below the high-water mark, and no change record is missing.
    func checkCurrent() throws(EngineError) {
        // The mark first: another process raises it only after its commit is durable, so a log read after it (in a
        // snapshot taken later) is at least as new — unless the database lost changes.
        let mark = try highWaterMark?.read()
        try database.readTransaction { () throws(EngineError) in
            let counter = try IntegrityCounter.load(from: database, key: key)
            let newest = try newestSequence()
            if mark == nil { try highWaterMark?.checkPresent(newest: newest) }
            try Self.check(newest, against: mark, path: highWaterMark?.path)
            // The sealed counter is rewritten at each compaction, which never removes the newest record: a log
            // that ends before it was cut. A record removed from the middle breaks the count `verify()` checks.
            guard newest >= counter.sequence else {
                throw EngineError(
                    .decode,
                    "the keychain's change log ends at \(newest), before its sealed counter (\(counter.sequence)): "
                        + "records were removed or the database was damaged")
            }
        }
    }

    /// Throws when the newest change is below the high-water mark `mark` (read before it).
    static func check(_ newest: Int64, against mark: Int64?, path: String?) throws(EngineError) {
        guard let mark, mark > newest else { return }
        throw EngineError(
            .decode,
            "the keychain database is older than its last acknowledged change (\(newest) < \(mark)): its "
                + "WAL was damaged or the database was rolled back, so newer items would be missing or stale; "
                + "`security verify-keychain` lists what is wrong, and removing \(path ?? "the high-water mark") "
                + "accepts the database as it is now")
    }

    /// The counter, authenticated.
    func counter() throws(EngineError) -> IntegrityCounter {
        try IntegrityCounter.load(from: database, key: key)
    }

    /// The high-water mark's recorded sequence, if any. Read it before the counter it is compared with.
    func acknowledgedSequence() throws(EngineError) -> Int64? {
        try highWaterMark?.read()
    }

    /// The high-water mark's path, for messages.
    var highWaterMarkPath: String? { highWaterMark?.path }

    /// Whether a stored record's hash is right.
    func authenticates(_ change: ChangeRecord, mac: Data?) throws(EngineError) -> Bool {
        guard let mac else { return false }
        return KeyedHash.equal(mac, try change.mac(key: key))
    }

    // MARK: Migration

    /// Seals what the schema migration made in SQL (the counter and one record per existing row) inside the
    /// migration's transaction, so there is never an unsealed counter to trust.
    static func sealMigrated(_ database: Database, key: SecretKey) throws(EngineError) {
        var records: [ChangeRecord] = []
        try database.query("SELECT \(ChangeRecord.columns) FROM changes WHERE mac IS NULL") { row in
            records.append(ChangeRecord(row))
            return true
        }
        for record in records {
            try database.run(
                "UPDATE changes SET mac = ? WHERE seq = ?",
                [.blob(try record.mac(key: key)), .integer(record.sequence)])
        }
        let counter = try IntegrityCounter.stored(in: database)?.counter
        guard let counter else { throw .internalError("the migration made no change counter") }
        try counter.save(to: database, key: key)
    }
}
