import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection: the only place the PostgreSQL store calls libpq for statements. Every statement goes
/// through ``execute(_:_:)`` with its parameters bound (`PQexecParams`, binary format), never interpolated into
/// the SQL, and every failure becomes a ``SyncStoreError`` that names the store (its URL without a password).
///
/// Not thread-safe, as libpq connections are not: its owner serializes the calls.
final class PostgresConnection {
    /// A statement parameter.
    enum Value {
        /// A `text` value.
        case text(String)
        /// A `bytea` value.
        case bytes([UInt8])
    }

    /// The rows a statement returned, every value in binary format (`nil` for SQL NULL), and how many rows it
    /// inserted, updated or deleted.
    struct Rows {
        var values: [[[UInt8]?]]
        var affected: Int
    }

    private let connection: OpaquePointer
    /// The store's URL without its password, for messages.
    let description: String

    /// Connects to `conninfo` (a `postgresql://` URL or `key=value` string), waiting at most `timeout` seconds and
    /// giving up at once when `wake` (a descriptor) becomes readable.
    init(_ conninfo: String, description: String, timeout: Double, wake: Int32? = nil) throws(SyncStoreError) {
        self.description = description
        guard let connection = PQconnectStart(conninfo) else {
            throw SyncStoreError(.unavailable, "cannot connect to \(description): libpq is out of memory")
        }
        self.connection = connection
        let deadline = Date(timeIntervalSinceNow: timeout)
        var state = PGRES_POLLING_WRITING  // as libpq asks, the first wait is for writing
        while PQstatus(connection) != CONNECTION_BAD {
            switch state {
            case PGRES_POLLING_OK:
                // Notices (a table that exists already) would go to standard error.
                PQsetNoticeProcessor(connection, { _, _ in }, nil)
                return
            case PGRES_POLLING_FAILED:
                break
            default:
                let events = Int16(state == PGRES_POLLING_READING ? POLLIN : POLLOUT)
                var descriptors = [pollfd(fd: PQsocket(connection), events: events, revents: 0)]
                if let wake { descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else {
                    throw SyncStoreError(
                        .unavailable, "cannot connect to \(description): no answer in \(Int(timeout)) s")
                }
                let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(remaining * 1000) + 1)
                if ready < 0, errno != EINTR {
                    throw SyncStoreError(.unavailable, "cannot connect to \(description): poll failed")
                }
                if descriptors.count > 1, descriptors[1].revents != 0 {
                    throw SyncStoreError(.unavailable, "connecting to \(description) was cancelled")
                }
                if ready <= 0 { continue }
                state = PQconnectPoll(connection)
                continue
            }
            break
        }
        throw SyncStoreError(.unavailable, "cannot connect to \(description): \(lastMessage)")
    }

    deinit { PQfinish(connection) }

    /// The connection's socket, to poll for notifications.
    var socket: Int32 { PQsocket(connection) }

    /// Whether the connection is still up: reads what the server sent meanwhile (a shutdown notice, a closed
    /// socket), so that a connection the server dropped while idle is noticed before a statement is sent on it.
    var isAlive: Bool {
        guard PQstatus(connection) == CONNECTION_OK else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, 0) > 0, PQconsumeInput(connection) == 0 { return false }
        return PQstatus(connection) == CONNECTION_OK
    }

    /// Reads what arrived on the socket; returns `false` when the connection is gone.
    func consumeInput() -> Bool {
        PQconsumeInput(connection) != 0 && PQstatus(connection) == CONNECTION_OK
    }

    /// Takes the notifications received so far; returns how many there were.
    func takeNotifications() -> Int {
        var count = 0
        while let notification = PQnotifies(connection) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, …; `doing` says what it was for, in messages.
    @discardableResult
    func execute(_ sql: String, _ parameters: [Value] = [], doing: String) throws(SyncStoreError) -> Rows {
        // Each value is copied into memory of its own that lives until the statement returns.
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer { buffers.forEach { $0.deallocate() } }
        var types: [Oid] = []
        var lengths: [Int32] = []
        for parameter in parameters {
            let bytes: [UInt8]
            switch parameter {
            case .text(let text):
                bytes = Array(text.utf8)
                types.append(25)  // text
            case .bytes(let value):
                bytes = value
                types.append(17)  // bytea
            }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            buffer.copyBytes(from: bytes)
            buffers.append(buffer)
            lengths.append(Int32(bytes.count))
        }
        let values: [UnsafePointer<CChar>?] = buffers.map {
            UnsafePointer($0.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
        let formats = [Int32](repeating: 1, count: parameters.count)
        let result = PQexecParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw failure(result, doing: doing)
        }
        var rows = Rows(values: [], affected: Int(String(cString: PQcmdTuples(result))) ?? 0)
        for row in 0..<PQntuples(result) {
            rows.values.append(
                (0..<PQnfields(result)).map { column in
                    guard PQgetisnull(result, row, column) == 0 else { return nil }
                    let count = Int(PQgetlength(result, row, column))
                    guard count > 0, let value = PQgetvalue(result, row, column) else { return [] }
                    return Array(UnsafeRawBufferPointer(start: value, count: count))
                })
        }
        return rows
    }

    /// libpq's last message on this connection, on one line.
    private var lastMessage: String {
        guard let message = PQerrorMessage(connection) else { return "no message" }
        return String(cString: message).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The error for a failed statement: `.unavailable` when the connection is gone or the server said to try
    /// again (connection failures, shutting down, too many connections, serialization or deadlock), otherwise
    /// `.damaged` (the server refused what this store sent: a table altered, a schema it does not know).
    private func failure(_ result: OpaquePointer?, doing: String) -> SyncStoreError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let message =
            result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? lastMessage
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        let retryable =
            PQstatus(connection) != CONNECTION_OK || state == nil
            || ["08", "53", "57", "40"].contains { state?.hasPrefix($0) == true }
        return SyncStoreError(
            retryable ? .unavailable : .damaged,
            "cannot \(doing) in \(description): \(oneLine)\(state.map { " (SQLSTATE \($0))" } ?? "")")
    }
}
