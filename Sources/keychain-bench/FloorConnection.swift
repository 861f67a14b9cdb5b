import CSQLite
import Foundation

/// The floors' SQLite connection: WAL, `synchronous=FULL` and a page cache as the engine's, statements prepared
/// once, values bound straight from `Data`, byte arrays and numbers — only what a careful C program would do, so
/// that the floors cost nothing the engine must not also pay.
final class FloorConnection {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private static let transient = csqlite_transient()

    /// Opens (creating) the database at `path` in WAL mode and runs `schema`.
    init(path: String, schema: String) throws {
        guard
            sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK
        else {
            throw BenchError("cannot open \(path)")
        }
        // The engine's page cache (8 MiB, Database.swift): with SQLite's default 2 MiB a floor read its pages again
        // through system calls from about 10,000 items on, which the engine does not.
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -8192;" + schema)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs statements that bind nothing.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure() }
    }

    /// Runs one statement to its end.
    func run(_ sql: String, _ values: [Any]) throws {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure() }
    }

    /// Adds the entries `indices` (prefix "batch") with `add` in one transaction, timing each add; the commit
    /// counts toward the batch's throughput, though to no single add's latency.
    func batch(
        _ indices: Range<Int>, recorder: inout LatencyRecorder, _ add: (BenchEntry) throws -> Void
    ) throws {
        try execute("BEGIN IMMEDIATE")
        for index in indices {
            let entry = BenchEntry(index, prefix: "batch")
            try recorder.time { try add(entry) }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        try execute("COMMIT")
        recorder.extraNanoseconds += DispatchTime.now().uptimeNanoseconds - start
    }

    /// The blob in `column` of the first row, or `nil` when there is none.
    func query(_ sql: String, _ values: [Any], column: Int32) throws -> Data? {
        try first(sql, values) { row in
            let count = Int(sqlite3_column_bytes(row, column))
            guard let bytes = sqlite3_column_blob(row, column) else { return Data() }
            return Data(bytes: bytes, count: count)
        }
    }

    /// `body` of the first row (read through `sqlite3_column_*` while it runs), or `nil` when there is none.
    func first<Result>(_ sql: String, _ values: [Any], _ body: (OpaquePointer) throws -> Result) throws -> Result? {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return try body(statement)
    }

    private func prepared(_ sql: String, _ values: [Any]) throws -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var pointer: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &pointer, nil) == SQLITE_OK, let pointer else { throw failure() }
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
            case let bytes as [UInt8]:
                _ = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient)
                }
            case let number as Double: sqlite3_bind_double(statement, index, number)
            case let number as Int64: sqlite3_bind_int64(statement, index, number)
            default: sqlite3_bind_null(statement, index)
            }
        }
        return statement
    }

    private func failure() -> BenchError {
        BenchError("floor: \(String(cString: sqlite3_errmsg(handle)))")
    }
}
