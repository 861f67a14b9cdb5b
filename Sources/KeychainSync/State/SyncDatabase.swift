import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The sync state of one device, in its own SQLite file (`sync.sqlite`, 0600) inside the keychain directory, so
/// the items' schema is untouched: the device's wrapped identity keys, its clock, where it is in the change feed,
/// the replica of every verified log entry (opened again for history), and the map between local items and sync
/// UUIDs.
///
/// Not thread-safe: ``SyncDevice`` serialises every use.
final class SyncDatabase {
    static let fileName = "sync.sqlite"

    let database: Database
    let path: String

    private init(path: String) throws(SyncError) {
        self.path = path
        database = try Self.sql("cannot open the sync state \(path)") { () throws(EngineError) in
            try Database(path: path)
        }
    }

    /// Whether `directory` holds sync state.
    static func exists(in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(fileName).path)
    }

    /// Creates the sync state of `directory` (0600); refuses when there is one.
    static func create(in directory: URL) throws(SyncError) -> SyncDatabase {
        let path = directory.appendingPathComponent(fileName).path
        // Made empty and 0600 first (exclusively, no link followed), so SQLite opens a file no one else could.
        do throws(EngineError) {
            try FileDescriptor<EngineError>.createExclusively(path).close()
        } catch {
            if FileManager.default.fileExists(atPath: path) {
                throw SyncError(.alreadyConfigured, "the keychain in \(directory.path) has sync state already")
            }
            throw SyncError(error, "cannot create \(path)")
        }
        do {
            let state = try SyncDatabase(path: path)
            try state.createSchema()
            try state.ensureChainSchema()
            try state.ensureEpochKeySchema()
            return state
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Opens the sync state of `directory`.
    static func open(in directory: URL) throws(SyncError) -> SyncDatabase {
        guard exists(in: directory) else {
            throw SyncError(
                .notConfigured, "the keychain in \(directory.path) is not set up for sync (run sync-init or sync-join)")
        }
        let state = try SyncDatabase(path: directory.appendingPathComponent(fileName).path)
        try state.ensureChainSchema()
        try state.ensureEpochKeySchema()
        return state
    }

    private func createSchema() throws(SyncError) {
        try Self.sql("cannot create the sync state") { () throws(EngineError) in
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS entries(
                    author TEXT NOT NULL, sequence INTEGER NOT NULL, clock INTEGER NOT NULL, kind TEXT NOT NULL,
                    subject TEXT, bytes BLOB NOT NULL, PRIMARY KEY(author, sequence));
                CREATE INDEX IF NOT EXISTS entries_subject ON entries(subject);
                CREATE TABLE IF NOT EXISTS items(
                    uuid TEXT PRIMARY KEY, local_uuid TEXT UNIQUE, applied_hash BLOB, key_hash BLOB,
                    dead INTEGER NOT NULL DEFAULT 0, winner_author TEXT, winner_sequence INTEGER);
                CREATE INDEX IF NOT EXISTS items_key ON items(key_hash);
                """)
        }
    }

    @discardableResult
    static func sql<T>(_ context: @autoclosure () -> String, _ body: () throws(EngineError) -> T) throws(SyncError)
        -> T
    {
        do {
            return try body()
        } catch {
            throw SyncError(.keychain(error.code), "\(context()): \(error.message)")
        }
    }

    /// Runs `body` in one write transaction; inside another (a pass's, ``SyncDevice/syncOnce()``), in a savepoint
    /// of it, so a body that fails leaves none of its writes behind while the pass goes on.
    func transaction<T>(_ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        if database.isInTransaction { return try inSavepoint(body) }
        var failure: SyncError?
        do throws(EngineError) {
            return try database.writeTransaction { () throws(EngineError) -> T in
                do throws(SyncError) {
                    return try body()
                } catch {
                    failure = error
                    throw EngineError(.ioError, error.message)
                }
            }
        } catch {
            if let failure { throw failure }
            throw SyncError(.keychain(error.code), "the sync state could not be written: \(error.message)")
        }
    }

    /// Runs `body` in a savepoint of the open transaction, rolled back to it when `body` fails.
    private func inSavepoint<T>(_ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        try Self.sql("cannot begin a savepoint in the sync state") { () throws(EngineError) in
            try database.run("SAVEPOINT nested")
        }
        do throws(SyncError) {
            let result = try body()
            try Self.sql("cannot release a savepoint in the sync state") { () throws(EngineError) in
                try database.run("RELEASE nested")
            }
            return result
        } catch {
            try? database.run("ROLLBACK TO nested")
            try? database.run("RELEASE nested")
            throw error
        }
    }

    /// Runs `body` with SQLite's secure delete on (the bytes a write frees are overwritten with zeros), then
    /// checkpoints and empties the write-ahead log: a secret `body` replaces leaves no copy in the file or its log.
    func wipingFreedBytes(_ body: () throws(SyncError) -> Void) throws(SyncError) {
        try Self.sql("cannot turn on secure delete in the sync state") { () throws(EngineError) in
            try database.execute("PRAGMA secure_delete = ON")
        }
        try body()
        try Self.sql("cannot checkpoint the sync state") { () throws(EngineError) in
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    // MARK: Meta

    func value(_ name: String) throws(SyncError) -> Data? {
        try Self.sql("cannot read \(name) from the sync state") { () throws(EngineError) -> Data? in
            try database.first("SELECT value FROM meta WHERE name = ?", [.text(name)]) { $0.blob(0) ?? Data() }
        }
    }

    func setValue(_ value: Data, for name: String) throws(SyncError) {
        try Self.sql("cannot write \(name) to the sync state") { () throws(EngineError) in
            try database.run(
                "INSERT INTO meta(name, value) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                [.text(name), .blob(value)])
        }
    }

    func deleteValue(_ name: String) throws(SyncError) {
        try Self.sql("cannot write \(name) to the sync state") { () throws(EngineError) in
            try database.run("DELETE FROM meta WHERE name = ?", [.text(name)])
        }
    }

    func text(_ name: String) throws(SyncError) -> String? {
        try value(name).map { String(decoding: $0, as: UTF8.self) }
    }

    func setText(_ text: String, for name: String) throws(SyncError) {
        try setValue(Data(text.utf8), for: name)
    }

    func integer(_ name: String) throws(SyncError) -> Int64? {
        try text(name).flatMap { Int64($0) }
    }

    func setInteger(_ value: Int64, for name: String) throws(SyncError) {
        try setText(String(value), for: name)
    }

    // MARK: Entries

    /// A verified log entry as the replica keeps it.
    struct StoredEntry {
        var author: String
        var sequence: Int64
        var clock: HybridTime
        var kind: LogEntry.Kind
        var subject: String?
        var bytes: [UInt8]
    }

    /// Keeps a verified entry (a second copy of one already kept changes nothing; a second body under its place is
    /// the caller's to find, with ``entry(author:sequence:)``, before); `true` when it was new.
    @discardableResult
    func insert(_ entry: LogEntry, bytes: [UInt8]) throws(SyncError) -> Bool {
        let subject = entry.item?.uuid.uuidString ?? entry.subject ?? (try? entry.member?.deviceID)
        let changed = try Self.sql("cannot keep a log entry") { () throws(EngineError) -> Int in
            try database.run(
                "INSERT OR IGNORE INTO entries(author, sequence, clock, kind, subject, bytes) VALUES(?, ?, ?, ?, ?, ?)",
                [
                    .text(entry.author), .integer(entry.sequence), .integer(entry.clock.rawValue),
                    .text(entry.kind.rawValue), subject.map { .text($0) } ?? .null, .blob(Data(bytes)),
                ])
        }
        return changed > 0
    }

    /// Whether `author`'s log holds an entry kept after `start` through `end` of another kind than `excluded`.
    func hasEntries(
        of author: String, after start: Int64, through end: Int64, besides excluded: LogEntry.Kind
    ) throws(SyncError) -> Bool {
        try Self.sql("cannot read the sync state") { () throws(EngineError) -> Bool in
            try database.first(
                "SELECT 1 FROM entries WHERE author = ? AND sequence > ? AND sequence <= ? AND kind != ? LIMIT 1",
                [.text(author), .integer(start), .integer(end), .text(excluded.rawValue)]
            ) { _ in true } ?? false
        }
    }

    /// The highest sequence kept of `author`'s log (0 when none).
    func lastSequence(of author: String) throws(SyncError) -> Int64 {
        try Self.sql("cannot read the sync state") { () throws(EngineError) -> Int64 in
            try database.first("SELECT MAX(sequence) FROM entries WHERE author = ?", [.text(author)]) {
                $0.integer(0)
            } ?? 0
        }
    }

    /// Every author's sequences kept.
    func sequences() throws(SyncError) -> [String: Set<Int64>] {
        var result: [String: Set<Int64>] = [:]
        try Self.sql("cannot read the sync state") { () throws(EngineError) in
            try database.query("SELECT author, sequence FROM entries") { row in
                result[row.text(0), default: []].insert(row.integer(1))
                return true
            }
        }
        return result
    }

    /// Forgets an entry (a resync drops those the store no longer holds).
    func deleteEntry(author: String, sequence: Int64) throws(SyncError) {
        try Self.sql("cannot write the sync state") { () throws(EngineError) in
            try database.run(
                "DELETE FROM entries WHERE author = ? AND sequence = ?", [.text(author), .integer(sequence)])
        }
    }

    /// Every author's highest sequence kept.
    func lastSequences() throws(SyncError) -> [String: Int64] {
        var result: [String: Int64] = [:]
        try Self.sql("cannot read the sync state") { () throws(EngineError) in
            try database.query("SELECT author, MAX(sequence) FROM entries GROUP BY author") { row in
                result[row.text(0)] = row.integer(1)
                return true
            }
        }
        return result
    }

    /// The entries of the given kinds (all without kinds), optionally of one subject or only those dated after
    /// `clockAbove`, ordered by author, sequence.
    func entries(
        kinds: [LogEntry.Kind] = [], subject: String? = nil, clockAbove: HybridTime? = nil
    ) throws(SyncError) -> [StoredEntry] {
        var conditions: [String] = []
        var bindings: [SQLValue] = []
        if let clockAbove {
            conditions.append("clock > ?")
            bindings.append(.integer(clockAbove.rawValue))
        }
        if !kinds.isEmpty {
            conditions.append("kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))")
            bindings += kinds.map { .text($0.rawValue) }
        }
        if let subject {
            conditions.append("subject = ?")
            bindings.append(.text(subject))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var result: [StoredEntry] = []
        try Self.sql("cannot read the sync state") { () throws(EngineError) in
            try database.query(
                "SELECT author, sequence, clock, kind, subject, bytes FROM entries\(filter) ORDER BY author, sequence",
                bindings
            ) { row in
                if let kind = LogEntry.Kind(rawValue: row.text(3)) {
                    result.append(
                        StoredEntry(
                            author: row.text(0), sequence: row.integer(1), clock: HybridTime(rawValue: row.integer(2)),
                            kind: kind, subject: row.isNull(4) ? nil : row.text(4),
                            bytes: [UInt8](row.blob(5) ?? Data())
                        ))
                }
                return true
            }
        }
        return result
    }

    /// One entry.
    func entry(author: String, sequence: Int64) throws(SyncError) -> [UInt8]? {
        try Self.sql("cannot read the sync state") { () throws(EngineError) -> [UInt8]? in
            try database.first(
                "SELECT bytes FROM entries WHERE author = ? AND sequence = ?", [.text(author), .integer(sequence)]
            ) { [UInt8]($0.blob(0) ?? Data()) }
        }
    }

    // MARK: Items

    /// What this device knows about one sync item.
    struct ItemState: Equatable {
        var uuid: UUID
        /// The local item that shows it, when it is shown here.
        var localUUID: UUID?
        /// A local keyed hash of the content last written to or read from the local item (to not echo it back).
        var appliedHash: Data?
        /// A local keyed hash of the winning version's primary key.
        var keyHash: Data?
        var isDead: Bool
        var winnerAuthor: String?
        var winnerSequence: Int64?
    }

    func items() throws(SyncError) -> [UUID: ItemState] {
        var result: [UUID: ItemState] = [:]
        try Self.sql("cannot read the sync state") { () throws(EngineError) in
            try database.query(
                "SELECT uuid, local_uuid, applied_hash, key_hash, dead, winner_author, winner_sequence FROM items"
            ) { row in
                if let state = Self.itemState(row) { result[state.uuid] = state }
                return true
            }
        }
        return result
    }

    func item(_ uuid: UUID) throws(SyncError) -> ItemState? {
        try itemWhere("uuid = ?", uuid)
    }

    func item(local uuid: UUID) throws(SyncError) -> ItemState? {
        try itemWhere("local_uuid = ?", uuid)
    }

    private func itemWhere(_ condition: String, _ uuid: UUID) throws(SyncError) -> ItemState? {
        try Self.sql("cannot read the sync state") { () throws(EngineError) -> ItemState?? in
            try database.first(
                "SELECT uuid, local_uuid, applied_hash, key_hash, dead, winner_author, winner_sequence FROM items WHERE \(condition)",
                [.text(uuid.uuidString)]
            ) { Self.itemState($0) }
        } ?? nil
    }

    func save(_ state: ItemState) throws(SyncError) {
        try Self.sql("cannot write the sync state") { () throws(EngineError) in
            try database.run(
                """
                INSERT OR REPLACE INTO items(uuid, local_uuid, applied_hash, key_hash, dead, winner_author,
                    winner_sequence) VALUES(?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(state.uuid.uuidString), state.localUUID.map { .text($0.uuidString) } ?? .null,
                    state.appliedHash.map { .blob($0) } ?? .null, state.keyHash.map { .blob($0) } ?? .null,
                    .integer(state.isDead ? 1 : 0), state.winnerAuthor.map { .text($0) } ?? .null,
                    state.winnerSequence.map { .integer($0) } ?? .null,
                ])
        }
    }

    private static func itemState(_ row: Row) -> ItemState? {
        guard let uuid = UUID(uuidString: row.text(0)) else { return nil }
        return ItemState(
            uuid: uuid, localUUID: row.isNull(1) ? nil : UUID(uuidString: row.text(1)), appliedHash: row.blob(2),
            keyHash: row.blob(3), isDead: row.integer(4) != 0, winnerAuthor: row.isNull(5) ? nil : row.text(5),
            winnerSequence: row.isNull(6) ? nil : row.integer(6))
    }
}
