import Foundation

/// The floor: the same workload on a plain SQLite table with the same columns and indexes, WAL and
/// `synchronous=FULL`, statements prepared once — and no crypto, no blind hashes, values in clear.
///
/// Only the benchmark does this; it exists to show what the engine's work costs on top of SQLite itself.
final class FloorStore: BenchStore {
    private let database: FloorConnection
    private let group = Data("TEAM.bench".utf8)

    /// The engine's table and indexes, every column in clear (the sealed floor's items too).
    static let itemsSchema = """
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
        """

    init(directory: URL) throws {
        database = try FloorConnection(
            path: directory.appendingPathComponent("floor.db").path, schema: Self.itemsSchema)
    }

    func add(_ entry: BenchEntry) throws {
        try database.run(
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
        try database.query(
            """
            SELECT rowid, uuid, class, pdmn, sync, agrp, pk, mdat, wrapped_key, metadata, secret FROM items
            WHERE tomb = 0 AND class = 'genp' AND sync = 0 AND +agrp = ? AND svce = ? AND acct = ? ORDER BY rowid
            """,
            [group, Data(service.utf8), Data(account.utf8)], column: withData ? 10 : 9)
    }

    func update(service: String, account: String, secret: Data) throws {
        try database.run(
            """
            UPDATE items SET secret = ?, mdat = ?, seq = (SELECT IFNULL(MAX(seq), 0) + 1 FROM items)
            WHERE tomb = 0 AND class = 'genp' AND sync = 0 AND +agrp = ? AND svce = ? AND acct = ?
            """,
            [secret, Date().timeIntervalSince1970, group, Data(service.utf8), Data(account.utf8)])
    }

    func delete(service: String, account: String) throws {
        try database.run(
            "DELETE FROM items WHERE tomb = 0 AND class = 'genp' AND sync = 0 AND +agrp = ? AND svce = ? AND acct = ?",
            [group, Data(service.utf8), Data(account.utf8)])
    }

    func batchAdd(_ indices: Range<Int>, recorder: inout LatencyRecorder) throws {
        try database.batch(indices, recorder: &recorder, add)
    }
}
