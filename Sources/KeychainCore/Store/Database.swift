import CSQLite
import CSQLiteWAL
import Foundation

/// A value bound to, or read from, an SQL statement.
package enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// One SQLite connection: every query of the engine goes through it.
///
/// Statements are prepared once and reused; write transactions are `BEGIN IMMEDIATE` so that two processes never
/// deadlock upgrading a read lock; busy waits, WAL and durability are configured here and nowhere else. Not
/// thread-safe: the engine serialises access.
package final class Database {
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    package private(set) var isInTransaction = false
    /// Told about every write transaction's end: the change log seals its counter before `COMMIT` and raises the
    /// high-water mark after it.
    weak var writeObserver: WriteTransactionObserver?

    /// How long a statement waits for another process's write lock before failing.
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// SQLite's process-wide settings, applied once before the first connection: no memory statistics (a global
    /// mutex on every allocation otherwise), and the VFS that writes a commit's WAL frames in one system call
    /// (`CSQLiteWAL`; `false` when it could not be registered, and the default VFS is used).
    private static let configured: Bool = {
        csqlite_disable_memory_statistics()
        return ck_wal_vfs_register() == SQLITE_OK
    }()

    /// Opens the database file at `path`, which must exist (a new keychain's is made under a temporary name and
    /// linked into place, never created in place), or an in-memory database when `path` is `nil`. A file that
    /// cannot be written opens read-only: reads work, writes are ``EngineError/Code/writePermission``.
    package init(path: String?) throws(EngineError) {
        _ = Self.configured
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (path == nil ? SQLITE_OPEN_CREATE : 0)
        let status = sqlite3_open_v2(path ?? ":memory:", &connection, flags, Self.configured ? CK_WAL_VFS_NAME : nil)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(connection)
            throw EngineError(.ioError, "cannot open the keychain database at \(path ?? ":memory:"): \(message)")
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        if path != nil {
            try execute("PRAGMA journal_mode = WAL")
            // Keep the WAL and its index when the last connection closes (they hold only sealed rows): a short-lived
            // process, such as one `security` command, then neither recreates nor deletes them. The size limit
            // truncates the WAL after checkpoints.
            var persist: Int32 = 1
            sqlite3_file_control(handle, "main", CSQLITE_FCNTL_PERSIST_WAL, &persist)
            try execute("PRAGMA journal_size_limit = 4194304")
        }
        try execute("PRAGMA synchronous = FULL")
        // 8 MiB of page cache instead of SQLite's 2 MiB: a keychain's rows are sealed (larger than their plaintext)
        // and indexed several ways, so at 10,000 items the default cache missed on most lookups and read each page
        // again through a system call (profiled: finds 53k → 73k a second, batch adds 10.6k → 13.6k). Pages are
        // allocated as they are read, so a short-lived process such as one `security` command does not pay it.
        try execute("PRAGMA cache_size = -8192")
        // Savepoint and statement journals in memory: a write session (a restore) takes a savepoint per write, whose
        // journal SQLite otherwise writes to a temporary file page by page (found by the helper `backupspeed`: 28
        // writes per restored item). They hold sealed pages only, and are freed when the savepoint is released.
        try execute("PRAGMA temp_store = MEMORY")
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that bind nothing and return nothing of interest.
    package func execute(_ sql: String) throws(EngineError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        let message = errorMessage.map { String(cString: $0) }
        sqlite3_free(errorMessage)
        if status != SQLITE_OK {
            throw Self.error(
                status, message ?? String(cString: sqlite3_errmsg(handle)), sql: sql,
                systemError: sqlite3_system_errno(handle))
        }
    }

    /// The row id of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs a statement that changes rows and returns the number of rows changed.
    @discardableResult
    package func run(_ sql: String, _ bindings: [SQLValue] = []) throws(EngineError) -> Int {
        let statement = try prepared(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query and calls `body` for each row until it returns `false` or the rows end.
    package func query(
        _ sql: String, _ bindings: [SQLValue] = [], _ body: (Row) throws(EngineError) -> Bool
    ) throws(EngineError) {
        try query(try prepared(sql), bindings, body)
    }

    /// Runs a statement prepared by ``prepared(_:)`` (hot paths keep it, sparing the lookup by SQL text).
    func query(
        _ statement: Statement, _ bindings: [SQLValue], _ body: (Row) throws(EngineError) -> Bool
    ) throws(EngineError) {
        try statement.bind(bindings)
        defer { statement.reset() }
        while try statement.step() {
            guard try body(Row(statement: statement)) else { return }
        }
    }

    /// The first row of a query, read by `body`, or `nil` when there is none.
    package func first<Result>(
        _ sql: String, _ bindings: [SQLValue] = [], _ body: (Row) throws(EngineError) -> Result
    ) throws(EngineError) -> Result? {
        var result: Result?
        try query(sql, bindings) { (row: Row) throws(EngineError) -> Bool in
            result = try body(row)
            return false
        }
        return result
    }

    /// Runs `body` in a read transaction: its queries see one consistent state of the database.
    package func readTransaction<Result>(_ body: () throws(EngineError) -> Result) throws(EngineError) -> Result {
        try transaction("BEGIN", body)
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled back when it throws.
    @discardableResult
    package func writeTransaction<Result>(_ body: () throws(EngineError) -> Result) throws(EngineError) -> Result {
        try transaction("BEGIN IMMEDIATE", observed: writeObserver, body)
    }

    /// Runs `body` between `begin` and `COMMIT`, or `ROLLBACK` when it throws; inside a transaction, just runs it.
    private func transaction<Result>(
        _ begin: String, observed observer: WriteTransactionObserver? = nil, _ body: () throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        guard !isInTransaction else { return try body() }
        // Prepared once, like every other statement: a write is often a one-row transaction.
        try run(begin)
        isInTransaction = true
        defer { isInTransaction = false }
        do {
            let result = try body()
            try observer?.transactionWillCommit()
            try run("COMMIT")
            observer?.transactionDidEnd(committed: true)
            return result
        } catch {
            _ = try? run("ROLLBACK")
            observer?.transactionDidEnd(committed: false)
            throw error
        }
    }

    /// The statement of `sql`, prepared once per connection.
    func prepared(_ sql: String) throws(EngineError) -> Statement {
        if let statement = statements[sql] { return statement }
        var pointer: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard status == SQLITE_OK, let pointer else { throw error(status, sql: sql) }
        let statement = Statement(pointer: pointer, database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    fileprivate func error(_ status: Int32, sql: String) -> EngineError {
        Self.error(
            status, String(cString: sqlite3_errmsg(handle)), sql: sql, systemError: sqlite3_system_errno(handle))
    }

    /// Maps an SQLite result to the engine's error: a full disk (SQLite's own code, or the `errno` behind an I/O
    /// error), a read-only database, a busy or failing file, a damaged database, or a uniqueness violation (which
    /// callers turn into a duplicate-item error naming the item).
    static func error(_ status: Int32, _ message: String, sql: String, systemError: Int32 = 0) -> EngineError {
        let text = "SQLite error \(status): \(message) (in \(sql.prefix(80)))"
        if status & 0xFF == SQLITE_IOERR, systemError == ENOSPC || systemError == EDQUOT {
            return EngineError(.diskFull, "the disk is full: \(text)")
        }
        switch status & 0xFF {
        case SQLITE_FULL: return EngineError(.diskFull, "the disk is full: \(text)")
        case SQLITE_READONLY:
            return EngineError(
                .writePermission,
                "the keychain is read-only (its database file or file system does not allow writing): \(text)")
        case SQLITE_CORRUPT, SQLITE_NOTADB: return EngineError(.invalidKeychain, text)
        case SQLITE_CONSTRAINT where status == CSQLITE_CONSTRAINT_UNIQUE || status == CSQLITE_CONSTRAINT_PRIMARYKEY:
            return EngineError(.duplicateItem, text)
        case SQLITE_NOMEM: return EngineError(.allocate, text)
        default: return EngineError(.ioError, text)
        }
    }
}

/// What a write transaction tells about its end (the change log is the one observer).
protocol WriteTransactionObserver: AnyObject {
    /// Called inside the transaction just before `COMMIT`; throwing rolls the transaction back.
    func transactionWillCommit() throws(EngineError)
    /// Called after `COMMIT` succeeded (durable: `synchronous = FULL`), or after the rollback.
    func transactionDidEnd(committed: Bool)
}

/// A prepared statement, owned and reused by its ``Database``.
package final class Statement {
    fileprivate let pointer: OpaquePointer
    private unowned let database: Database
    private let sql: String

    private static let transient = csqlite_transient()

    fileprivate init(pointer: OpaquePointer, database: Database, sql: String) {
        self.pointer = pointer
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(pointer)
    }

    fileprivate func bind(_ values: [SQLValue]) throws(EngineError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(pointer, index)
            case .integer(let number): status = sqlite3_bind_int64(pointer, index, number)
            case .real(let number): status = sqlite3_bind_double(pointer, index, number)
            case .text(let text):
                // withCString lends a native string's own bytes; passing the String would copy them.
                status = text.withCString { sqlite3_bind_text(pointer, index, $0, -1, Self.transient) }
            case .blob(let data):
                status = data.withUnsafeBytes { bytes in
                    // A zero-length blob still needs a non-null pointer, or SQLite stores NULL.
                    sqlite3_bind_blob(
                        pointer, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                        Self.transient)
                }
            }
            guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
        }
    }

    /// Steps once: `true` when a row is ready, `false` when the statement is done.
    fileprivate func step() throws(EngineError) -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw database.error(status, sql: sql)
        }
    }

    fileprivate func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }
}

/// The current row of a query, valid only inside the query's closure.
package struct Row {
    fileprivate let statement: Statement

    /// Whether a column is NULL.
    package func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement.pointer, column) == SQLITE_NULL
    }

    /// An integer column.
    package func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement.pointer, column)
    }

    /// A real column.
    package func real(_ column: Int32) -> Double {
        sqlite3_column_double(statement.pointer, column)
    }

    /// A text column (empty when NULL).
    package func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement.pointer, column) else { return "" }
        return String(cString: text)
    }

    /// A blob column's bytes in SQLite's memory (empty when NULL), valid only until the query moves to the next
    /// row: the hot path reads sealed columns through it without copying them.
    func unsafeBlob(_ column: Int32) -> UnsafeRawBufferPointer {
        let bytes = sqlite3_column_blob(statement.pointer, column)
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement.pointer, column)))
    }

    /// Whether a column holds `value` exactly: the same type and the same integer, text or bytes.
    func holds(_ value: SQLValue, at column: Int32) -> Bool {
        let type = sqlite3_column_type(statement.pointer, column)
        switch value {
        case .null: return type == SQLITE_NULL
        case .integer(let integer): return type == SQLITE_INTEGER && self.integer(column) == integer
        case .real(let real): return type == SQLITE_FLOAT && self.real(column) == real
        case .text(let text): return type == SQLITE_TEXT && self.text(column) == text
        case .blob(let bytes):
            guard type == SQLITE_BLOB else { return false }
            let stored = unsafeBlob(column)
            return stored.count == bytes.count && bytes.withUnsafeBytes { stored.elementsEqual($0) }
        }
    }

    /// A blob column, or `nil` when NULL.
    package func blob(_ column: Int32) -> Data? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement.pointer, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement.pointer, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
