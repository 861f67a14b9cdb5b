import CSQLite
import Foundation

/// The floor: the same workload on a plain SQLite table with the same columns and indexes, WAL and
/// `synchronous=FULL`, statements prepared once — and no crypto, no blind hashes, values in clear.
///
/// Only the benchmark does this; it exists to show what the engine's work costs on top of SQLite itself.
final class FloorStore: BenchStore {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private static let transient = csqlite_transient()
    private let group = Data("TEAM.bench".utf8)

    init(directory: URL) throws {
        let path = directory.appendingPathComponent("floor.db").path
        guard
            sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK
        else {
            throw BenchError("cannot open \(path)")
        }
        try execute(
            """
            PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
            CREATE TABLE items (rowid INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, class TEXT NOT NULL,
                pdmn TEXT NOT NULL, sync INTEGER NOT NULL, tomb INTEGER NOT NULL DEFAULT 0, agrp BLOB NOT NULL,
                pk BLOB NOT NULL, svce BLOB, acct BLOB, srvr BLOB, seq INTEGER NOT NULL, mdat REAL NOT NULL,
                wrapped_key BLOB NOT NULL, metadata BLOB NOT NULL, secret BLOB);
            CREATE UNIQUE INDEX items_primary_key ON items(pk) WHERE tomb = 0;
            CREATE INDEX items_service ON items(svce);
            CREATE INDEX items_account ON items(acct);
            CREATE INDEX items_server ON items(srvr);
            CREATE INDEX items_group ON items(agrp);
            CREATE INDEX items_sequence ON items(seq);
            """)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    func add(_ entry: BenchEntry) throws {
        try run(
            """
            INSERT INTO items (uuid, class, pdmn, sync, agrp, pk, svce, acct, srvr, seq, mdat, wrapped_key, metadata,
                secret)
            VALUES (?, 'genp', 'ak', 0, ?, ?, ?, ?, NULL, (SELECT IFNULL(MAX(seq), 0) + 1 FROM items), ?, x'', ?, ?)
            """,
            [
                withUnsafeBytes(of: UUID().uuid) { Data($0) }, group,
                Data((entry.service + "\u{0}" + entry.account).utf8),
                Data(entry.service.utf8), Data(entry.account.utf8), Date().timeIntervalSince1970,
                Data("acct=\(entry.account);svce=\(entry.service);labl=\(entry.label)".utf8), entry.secret,
            ])
    }

    func find(service: String, account: String, withData: Bool) throws -> Data? {
        try query(
            """
            SELECT rowid, uuid, class, pdmn, sync, agrp, pk, mdat, wrapped_key, metadata, secret FROM items
            WHERE tomb = 0 AND class = 'genp' AND sync = 0 AND +agrp = ? AND svce = ? AND acct = ? ORDER BY rowid
            """,
            [group, Data(service.utf8), Data(account.utf8)], column: withData ? 10 : 9)
    }

    func update(service: String, account: String, secret: Data) throws {
        try run(
            """
            UPDATE items SET secret = ?, mdat = ?, seq = (SELECT IFNULL(MAX(seq), 0) + 1 FROM items)
            WHERE tomb = 0 AND class = 'genp' AND sync = 0 AND +agrp = ? AND svce = ? AND acct = ?
            """,
            [secret, Date().timeIntervalSince1970, group, Data(service.utf8), Data(account.utf8)])
    }

    func delete(service: String, account: String) throws {
        try run(
            "DELETE FROM items WHERE tomb = 0 AND class = 'genp' AND sync = 0 AND +agrp = ? AND svce = ? AND acct = ?",
            [group, Data(service.utf8), Data(account.utf8)])
    }

    func batchAdd(_ indices: Range<Int>, recorder: inout LatencyRecorder) throws {
        try execute("BEGIN IMMEDIATE")
        for index in indices {
            let entry = BenchEntry(index, prefix: "batch")
            try recorder.time { try add(entry) }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        try execute("COMMIT")
        recorder.extraNanoseconds += DispatchTime.now().uptimeNanoseconds - start
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("floor: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    private func prepared(_ sql: String, _ values: [Any]) throws -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var pointer: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &pointer, nil) == SQLITE_OK, let pointer else {
                throw BenchError("floor: \(String(cString: sqlite3_errmsg(handle)))")
            }
            statements[sql] = pointer
            statement = pointer
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case let data as Data:
                _ = data.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient)
                }
            case let number as Double: sqlite3_bind_double(statement, index, number)
            default: sqlite3_bind_null(statement, index)
            }
        }
        return statement
    }

    private func run(_ sql: String, _ values: [Any]) throws {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw BenchError("floor: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    private func query(_ sql: String, _ values: [Any], column: Int32) throws -> Data? {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
