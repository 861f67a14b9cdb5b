/// The place a user's devices exchange sync records: a folder another tool keeps in step, or a PostgreSQL
/// database (DESIGN §12).
///
/// A store holds named, opaque byte records and sees only ciphertext. Its verbs are few on purpose, so that other
/// stores (S3-style object stores) can follow: a device writes only records under its own name prefix and never
/// rewrites one, so ``putIfAbsent(_:_:)`` is the only write, and it is the compare-and-set each device's log needs.
///
/// Names are `/`-separated segments of lowercase letters, digits, `-`, `_` and `.` (no segment `.` or `..`, no
/// leading or trailing `/`, at most 255 bytes in all); a store rejects any other name with
/// ``SyncStoreError/Kind/invalidName``, naming it.
public protocol SyncStore: Sendable {
    /// The names of the records whose names start with `prefix` (`""` for all), in ascending byte order.
    func list(prefix: String) throws(SyncStoreError) -> [String]

    /// The bytes of the record `name`, or `nil` when there is none.
    func get(_ name: String) throws(SyncStoreError) -> [UInt8]?

    /// The bytes of each record of `names` that exists (a name with no record is left out): what ``get(_:)`` gives
    /// for each, in as few round trips as the store can.
    func getMany(_ names: [String]) throws(SyncStoreError) -> [String: [UInt8]]

    /// Stores `bytes` as the record `name` unless a record by that name exists.
    ///
    /// The write is atomic and durable before this returns: another device sees all of the record or none of it.
    /// - Returns: `true` when the record was written, `false` when one by that name was already there (its bytes
    ///   are left as they were, whatever they are).
    func putIfAbsent(_ name: String, _ bytes: [UInt8]) throws(SyncStoreError) -> Bool

    /// Stores `records` in order as ``putIfAbsent(_:_:)`` would each, stopping at the first whose name is taken
    /// (it and the records after it are not written), in as few flushes and round trips as the store can.
    ///
    /// Each record written is whole and durable before this returns, as with ``putIfAbsent(_:_:)``; a failure may
    /// leave any prefix of `records` written.
    /// - Returns: how many of `records`, from the first, were written.
    func putAllIfAbsent(_ records: [(name: String, bytes: [UInt8])]) throws(SyncStoreError) -> Int

    /// Removes the record `name`; removing a record that does not exist is not an error.
    func delete(_ name: String) throws(SyncStoreError)

    /// Calls `onChange` from a thread of the store's whenever records may have been added or removed, by this
    /// process or another machine, until the returned watch is cancelled.
    ///
    /// A call says only "look again": several changes may share one call, and a call may come with no change.
    func watch(_ onChange: @escaping @Sendable () -> Void) throws(SyncStoreError) -> any SyncStoreWatch
}

extension SyncStore {
    /// ``SyncStore/getMany(_:)`` as one ``SyncStore/get(_:)`` per name, for stores where that costs no round trip.
    public func getMany(_ names: [String]) throws(SyncStoreError) -> [String: [UInt8]] {
        var records: [String: [UInt8]] = [:]
        for name in names {
            if let bytes = try get(name) { records[name] = bytes }
        }
        return records
    }

    /// ``SyncStore/putAllIfAbsent(_:)`` as one ``SyncStore/putIfAbsent(_:_:)`` per record.
    public func putAllIfAbsent(_ records: [(name: String, bytes: [UInt8])]) throws(SyncStoreError) -> Int {
        try putEachIfAbsent(records[...])
    }

    /// One ``SyncStore/putIfAbsent(_:_:)`` per record, stopping at the first whose name is taken; how many were
    /// written.
    func putEachIfAbsent(_ records: ArraySlice<(name: String, bytes: [UInt8])>) throws(SyncStoreError) -> Int {
        var written = 0
        for record in records {
            guard try putIfAbsent(record.name, record.bytes) else { break }
            written += 1
        }
        return written
    }

    /// `records` through `putChunk` in chunks of at most `size`, in order, stopping after the first chunk not
    /// written whole (`putChunk` returns how many of its records, from the first, it wrote); how many were written.
    func putInChunks(
        _ records: [(name: String, bytes: [UInt8])], size: Int,
        _ putChunk: (ArraySlice<(name: String, bytes: [UInt8])>) throws(SyncStoreError) -> Int
    ) throws(SyncStoreError) -> Int {
        var written = 0
        var start = 0
        while start < records.count {
            let chunk = records[start..<min(records.count, start + size)]
            let count = try putChunk(chunk)
            written += count
            guard count == chunk.count else { break }
            start += chunk.count
        }
        return written
    }
}

/// A running ``SyncStore/watch(_:)``.
public protocol SyncStoreWatch: Sendable {
    /// Stops the calls; when it returns, no call is running and none follows.
    func cancel()
}

/// Why a ``SyncStore`` verb failed.
public struct SyncStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The store cannot be reached now (a server down, a folder unmounted); trying again later may work.
        case unavailable
        /// A record name breaks ``SyncStore``'s rules.
        case invalidName
        /// The store's URL is malformed or names a scheme no store handles.
        case invalidURL
        /// The store answered something it should not have (a torn record, a schema it does not know).
        case damaged
    }

    /// What kind of failure it was.
    public var kind: Kind
    /// What failed, naming the store, record or value at fault.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
