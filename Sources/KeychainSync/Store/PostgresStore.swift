import CLibPQ
import Foundation

/// A ``SyncStore`` in a PostgreSQL database, for many machines: `postgresql://` or `postgres://` URLs, in every
/// form libpq accepts (`postgresql://user:password@host:port/database?sslmode=require`, or a Unix socket:
/// `postgresql:///database?host=/run/postgresql`, `postgresql://%2Frun%2Fpostgresql/database`).
///
/// Records are rows of one table (`PostgresSchema`), created when missing. ``putIfAbsent(_:_:)`` is an
/// `INSERT … ON CONFLICT DO NOTHING`: the database decides which of two writers of one name wins, whichever store
/// or machine they are on, and the loser's bytes are never stored. A watch listens on a connection of its own and
/// is woken by the `NOTIFY` that every insert and delete sends when it commits.
///
/// A connection that is gone (the server restarted, the network dropped) is replaced by the next verb; while the
/// server cannot be reached, verbs throw `.unavailable`, and a watch keeps trying and calls its `onChange` once it
/// is back. A ``putIfAbsent(_:_:)`` that fails with `.unavailable` may have been stored: call it again, and when
/// it returns `false`, ``get(_:)`` says whose bytes are there.
///
/// Safe from any number of threads: the store's one connection is used by one verb at a time.
public final class PostgresStore: SyncStore, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: `connection` is read and written only holding `lock`.
    /// The store's URL with any password hidden, for messages.
    public let description: String
    private let url: String
    private let connectTimeout: Double
    private let lock = NSLock()
    private var connection: PostgresConnection?

    /// Opens the store at `url` and connects to it, creating its tables when missing.
    /// - Parameter url: the server and database, in any form libpq accepts (`postgresql://…`, `postgres://…`).
    /// - Parameter connectTimeout: how long a connection attempt may take, in seconds.
    /// - Throws: `.invalidURL` when libpq cannot parse `url`; `.unavailable` when the server cannot be reached or
    ///   refuses the connection; `.damaged` when its tables have a schema this build does not know.
    public init(url: String, connectTimeout: Double = 10) throws(SyncStoreError) {
        description = Self.hidingPassword(url)
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
            throw SyncStoreError(.invalidURL, "\(description) is not a postgresql:// or postgres:// URL")
        }
        try Self.loadLibPQ()
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            var reason = message.map { String(cString: $0) } ?? "libpq is out of memory"
            PQfreemem(message)
            // libpq may quote the part it could not parse, which may be the password.
            for secret in Self.passwords(in: url) { reason = reason.replacingOccurrences(of: secret, with: "***") }
            throw SyncStoreError(
                .invalidURL,
                "the PostgreSQL URL \(description) is malformed: "
                    + reason.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        PQconninfoFree(options)
        self.url = url
        self.connectTimeout = connectTimeout
        try withConnection(retrying: false) { _ throws(SyncStoreError) in }
    }

    /// The records under `prefix`, in ascending byte order: a range query on the primary key.
    public func list(prefix: String) throws(SyncStoreError) -> [String] {
        try SyncStoreName.validatePrefix(prefix)
        let rows: PostgresConnection.Rows
        if let end = Self.end(ofPrefix: prefix) {
            // A range on the primary key, which its index serves; names hold no character LIKE would treat
            // specially, but a range needs no escaping at all.
            rows = try withConnection(retrying: true) { connection throws(SyncStoreError) in
                try connection.execute(
                    "SELECT name FROM keychain_sync_records WHERE name >= $1 AND name < $2 ORDER BY name",
                    [.text(prefix), .text(end)], doing: "list the records under \(SyncStoreName.quoted(prefix))")
            }
        } else {
            rows = try withConnection(retrying: true) { connection throws(SyncStoreError) in
                try connection.execute(
                    "SELECT name FROM keychain_sync_records ORDER BY name", doing: "list the records")
            }
        }
        // A row some other client wrote with a name no store could (`Upper`, `a//b`) is not a record, as a stray
        // file in a folder store is not.
        return rows.values.compactMap { row in
            guard let value = row.first.flatMap({ $0 }) else { return nil }
            let name = String(decoding: value, as: UTF8.self)
            return (try? SyncStoreName.validate(name)) == nil ? nil : name
        }
    }

    /// The record's bytes, or `nil` when there is none.
    public func get(_ name: String) throws(SyncStoreError) -> [UInt8]? {
        try SyncStoreName.validate(name)
        let rows = try withConnection(retrying: true) { connection throws(SyncStoreError) in
            try connection.execute(
                "SELECT bytes FROM keychain_sync_records WHERE name = $1", [.text(name)],
                doing: "read the record \(SyncStoreName.quoted(name))")
        }
        guard let row = rows.values.first else { return nil }
        guard let bytes = row.first.flatMap({ $0 }) else {
            throw SyncStoreError(.damaged, "the record \(SyncStoreName.quoted(name)) in \(description) has no bytes")
        }
        return bytes
    }

    /// The records of `names` that exist, read with one query per thousand names.
    public func getMany(_ names: [String]) throws(SyncStoreError) -> [String: [UInt8]] {
        for name in names { try SyncStoreName.validate(name) }
        var records: [String: [UInt8]] = [:]
        var start = 0
        while start < names.count {
            let chunk = names[start..<min(names.count, start + 1000)]
            start += chunk.count
            // Valid names hold no newline, so a newline-joined text parameter splits back into exactly them.
            let rows = try withConnection(retrying: true) { connection throws(SyncStoreError) in
                try connection.execute(
                    "SELECT name, bytes FROM keychain_sync_records WHERE name = ANY(string_to_array($1, E'\\n'))",
                    [.text(chunk.joined(separator: "\n"))], doing: "read \(chunk.count) records")
            }
            for row in rows.values {
                guard row.count == 2, let nameBytes = row[0], let bytes = row[1] else {
                    throw SyncStoreError(.damaged, "a record read from \(description) has no name or no bytes")
                }
                records[String(decoding: nameBytes, as: UTF8.self)] = bytes
            }
        }
        return records
    }

    /// Inserts the record unless its name is taken (`ON CONFLICT DO NOTHING`), committed before this returns.
    public func putIfAbsent(_ name: String, _ bytes: [UInt8]) throws(SyncStoreError) -> Bool {
        try SyncStoreName.validate(name)
        // Not retried on a fresh connection: if the first attempt's commit was lost, it may have been stored, and a
        // second attempt would then report someone else's record. The caller decides (see the type's comment).
        let rows = try withConnection(retrying: false) { connection throws(SyncStoreError) in
            try connection.execute(
                "INSERT INTO keychain_sync_records (name, bytes) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                [.text(name), .bytes(bytes)], doing: "store the record \(SyncStoreName.quoted(name))")
        }
        return rows.affected == 1
    }

    /// Deletes the record's row; a missing record is not an error.
    public func delete(_ name: String) throws(SyncStoreError) {
        try SyncStoreName.validate(name)
        try withConnection(retrying: true) { connection throws(SyncStoreError) in
            try connection.execute(
                "DELETE FROM keychain_sync_records WHERE name = $1", [.text(name)],
                doing: "remove the record \(SyncStoreName.quoted(name))")
        }
    }

    /// Listens for the store's notifications on a connection of its own (see `PostgresWatcher`).
    public func watch(_ onChange: @escaping @Sendable () -> Void) throws(SyncStoreError) -> any SyncStoreWatch {
        try PostgresWatcher.start(
            url: url, description: description, connectTimeout: connectTimeout, onChange: onChange)
    }

    /// Runs `body` on the store's connection, holding the lock; connects first when there is none or the one
    /// there is gone. With `retrying`, a statement that failed because the connection was lost is run once more on
    /// a new one (for statements that may run twice: reads and deletes).
    @discardableResult
    func withConnection<Result>(
        retrying: Bool, _ body: (PostgresConnection) throws(SyncStoreError) -> Result
    ) throws(SyncStoreError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        var attempts = retrying ? 2 : 1
        while true {
            attempts -= 1
            let current: PostgresConnection
            if let connection, connection.isAlive {
                current = connection
            } else {
                connection = nil
                current = try PostgresConnection(url, description: description, timeout: connectTimeout)
                try PostgresSchema.prepare(current)
                connection = current
            }
            do throws(SyncStoreError) {
                return try body(current)
            } catch {
                guard error.kind == .unavailable, !current.isAlive else { throw error }
                connection = nil
                if attempts == 0 { throw error }
            }
        }
    }

    /// The least string greater than every string that starts with `prefix`, or `nil` when `prefix` is empty:
    /// the prefix with its last byte raised by one (names are ASCII, and `~` is above every character they hold).
    static func end(ofPrefix prefix: String) -> String? {
        guard var last = prefix.utf8.last else { return nil }
        last += 1
        return String(decoding: prefix.utf8.dropLast() + [last], as: UTF8.self)
    }

    /// Loads libpq on first use (it is not linked: see CLibPQ.h); without it the store is unavailable, naming why.
    static func loadLibPQ() throws(SyncStoreError) {
        var error = [CChar](repeating: 0, count: 512)
        guard ck_libpq_load(&error, error.count) == 0 else { return }
        let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw SyncStoreError(.unavailable, "the PostgreSQL store needs libpq: \(reason)")
    }

    /// `url` with the password of its user part and any `password=` parameter replaced by `***`.
    package static func hidingPassword(_ url: String) -> String {
        var text = url
        if let password = userPassword(in: text) { text.replaceSubrange(password, with: "***") }
        guard let query = text.firstIndex(of: "?") else { return text }
        let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
        let shown = parameters.map { $0.lowercased().hasPrefix("password=") ? "password=***" : String($0) }
        return String(text[...query]) + shown.joined(separator: "&")
    }

    /// The passwords `url` holds (in its user part, in `password=` parameters), as written in it.
    private static func passwords(in url: String) -> [String] {
        var found = userPassword(in: url).map { [String(url[$0])] } ?? []
        if let query = url.firstIndex(of: "?") {
            for parameter in url[url.index(after: query)...].split(separator: "&")
            where parameter.lowercased().hasPrefix("password=") {
                found.append(String(parameter.dropFirst("password=".count)))
            }
        }
        return found.filter { !$0.isEmpty }
    }

    /// Where the password of `url`'s user part (`scheme://user:password@host`) is, if it has one.
    private static func userPassword(in url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? url.endIndex
        guard let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
            let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
        else { return nil }
        return url.index(after: colon)..<at
    }
}
