import CSQLite
import Foundation

/// Edits a keychain's database behind the engine's back, as an attacker with the files would.
enum Tampering {
    /// Gives every item the sealed secret of another item (the rows' secrets rotate by one).
    static func swapSecrets(inKeychainAt directory: URL) throws {
        var database: OpaquePointer?
        let path = directory.appendingPathComponent("keychain.db").path
        guard sqlite3_open(path, &database) == SQLITE_OK, let database else {
            throw TamperingError(message: "cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        let sql = """
            CREATE TEMP TABLE saved AS SELECT rowid AS id, secret FROM items;
            UPDATE items SET secret = (SELECT secret FROM saved WHERE id =
                (SELECT MIN(id) FROM saved WHERE id > items.rowid)) WHERE rowid < (SELECT MAX(id) FROM saved);
            """
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw TamperingError(message: String(cString: sqlite3_errmsg(database)))
        }
        guard sqlite3_changes(database) > 0 else { throw TamperingError(message: "no row was changed") }
    }
}

struct TamperingError: Error {
    let message: String
}
