import CSQLite
import CSodium
import Foundation

/// The guarantees' floor: the plain floor's table and statements, plus the least work that any store keeping the
/// engine's guarantees must do per item, written as a careful C program would (libsodium straight on byte buffers):
///
/// - lookup columns hold keyed hashes (BLAKE2b) of the service, the account and the primary key, never the values;
/// - each item has its own random key, wrapped (XChaCha20-Poly1305) by a class key; its metadata and its secret are
///   sealed under it, bound to the row's identity and version (UUID, change sequence, primary-key hash);
/// - every write appends a change record with a keyed MAC, indexed by item and by primary key (what sync reads, and
///   what tells a deleted or rolled-back row from a missing one);
/// - a find checks that its row is its item's latest version (the log's newest sequence for the UUID) before it
///   opens the row.
///
/// Left out is what is the engine's own: the API's types and validation, access groups and entitlements, the
/// keybag and its lock state, access control, the high-water mark. Ours beside this floor is the engine's overhead;
/// this floor beside the plain one is the price of the guarantees (issue 23's closing notes).
final class SealedFloorStore: BenchStore {
    private let database: FloorConnection
    private let classKey = SealedFloorStore.randomBytes(32)
    private let indexKey = SealedFloorStore.randomBytes(32)
    private let macKey = SealedFloorStore.randomBytes(32)
    private static let group = "TEAM.bench"
    private let groupHash: [UInt8]
    /// The last change sequence taken (one process writes this floor).
    private var sequence: Int64 = 0

    private static let sealOverhead =
        Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    init(directory: URL) throws {
        guard sodium_init() >= 0 else { throw BenchError("sealed floor: libsodium did not start") }
        database = try FloorConnection(
            path: directory.appendingPathComponent("sealed-floor.db").path,
            schema: FloorStore.itemsSchema
                + """
                CREATE TABLE changes (seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, uuid BLOB NOT NULL, pk BLOB,
                    mac BLOB NOT NULL);
                CREATE INDEX changes_item ON changes(uuid, seq);
                CREATE INDEX changes_primary_key ON changes(pk) WHERE pk IS NOT NULL;
                """)
        groupHash = Self.hash(indexKey) { state in
            Self.absorb(state, "agrp")
            Self.absorb(state, Self.group)
        }
    }

    func add(_ entry: BenchEntry) throws {
        try inTransaction { try insert(entry) }
    }

    /// Inserts the item and its change record, inside the caller's transaction.
    private func insert(_ entry: BenchEntry) throws {
        sequence += 1
        let uuid = Self.randomBytes(16)
        let primaryKey = primaryKeyHash(service: entry.service, account: entry.account)
        var itemKey = Self.randomBytes(32)
        defer { sodium_memzero(&itemKey, itemKey.count) }
        let metadata = Array("acct=\(entry.account);svce=\(entry.service);labl=\(entry.label)".utf8)
        try database.run(
            """
            INSERT INTO items (uuid, class, pdmn, sync, agrp, pk, svce, acct, srvr, seq, mdat, wrapped_key, metadata,
                secret)
            VALUES (?, 'genp', 'ak', 0, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)
            """,
            [
                uuid, groupHash, primaryKey, indexHash("svce", entry.service), indexHash("acct", entry.account),
                sequence, Date().timeIntervalSince1970, Self.seal(itemKey, key: classKey, associatedData: uuid),
                Self.seal(
                    metadata, key: itemKey,
                    associatedData: Self.binding(
                        UInt8(ascii: "m"), uuid: uuid, sequence: sequence, primaryKey: primaryKey)),
                Self.seal(
                    Array(entry.secret), key: itemKey,
                    associatedData: Self.binding(
                        UInt8(ascii: "s"), uuid: uuid, sequence: sequence, primaryKey: primaryKey)),
            ])
        try record(kind: 1, uuid: uuid, primaryKey: primaryKey)
    }

    func find(service: String, account: String, withData: Bool) throws -> Data? {
        let primaryKey = primaryKeyHash(service: service, account: account)
        return try database.first(
            """
            SELECT uuid, seq, wrapped_key, metadata, secret,
                (SELECT MAX(seq) FROM changes WHERE changes.uuid = items.uuid)
            FROM items WHERE tomb = 0 AND pk = ?
            """, [primaryKey]
        ) { row in
            let version = sqlite3_column_int64(row, 1)
            guard sqlite3_column_int64(row, 5) == version else { throw BenchError("sealed floor: a stale row") }
            // As C would: the row's blobs read in place, the item key and the associated data on the stack.
            let uuid = Self.blob(row, 0)
            return try withUnsafeTemporaryAllocation(byteCount: 32 + Self.bindingCount, alignment: 8) { scratch in
                let itemKey = UnsafeMutableRawBufferPointer(rebasing: scratch[..<32])
                defer { sodium_memzero(itemKey.baseAddress, 32) }
                try Self.open(Self.blob(row, 2), key: classKey, associatedData: uuid, into: itemKey)
                let associatedData = UnsafeMutableRawBufferPointer(rebasing: scratch[32...])
                Self.bind(
                    UInt8(ascii: withData ? "s" : "m"), uuid: uuid, sequence: version, primaryKey: primaryKey,
                    into: associatedData)
                let sealed = Self.blob(row, withData ? 4 : 3)
                var plaintext = Data(count: max(0, sealed.count - Self.sealOverhead))
                try plaintext.withUnsafeMutableBytes { output in
                    try Self.open(
                        sealed, key: UnsafeRawBufferPointer(itemKey),
                        associatedData: UnsafeRawBufferPointer(associatedData), into: output)
                }
                return plaintext
            }
        }
    }

    func update(service: String, account: String, secret: Data) throws {
        try inTransaction {
            let primaryKey = primaryKeyHash(service: service, account: account)
            let found = try database.first(
                "SELECT rowid, uuid, seq, wrapped_key, metadata FROM items WHERE tomb = 0 AND pk = ?", [primaryKey]
            ) { row in
                (
                    sqlite3_column_int64(row, 0), Array(Self.blob(row, 1)), sqlite3_column_int64(row, 2),
                    Array(Self.blob(row, 3)), Array(Self.blob(row, 4))
                )
            }
            guard let (rowID, uuid, version, wrapped, sealedMetadata) = found else {
                throw BenchError("sealed floor: no item to update")
            }
            var itemKey = try Self.open(wrapped, key: classKey, associatedData: uuid)
            defer { sodium_memzero(&itemKey, itemKey.count) }
            // The metadata is opened and sealed again: it is bound to the version, as the secret is.
            let metadata = try Self.open(
                sealedMetadata, key: itemKey,
                associatedData: Self.binding(UInt8(ascii: "m"), uuid: uuid, sequence: version, primaryKey: primaryKey))
            sequence += 1
            try database.run(
                "UPDATE items SET metadata = ?, secret = ?, seq = ?, mdat = ? WHERE rowid = ?",
                [
                    Self.seal(
                        metadata, key: itemKey,
                        associatedData: Self.binding(
                            UInt8(ascii: "m"), uuid: uuid, sequence: sequence, primaryKey: primaryKey)),
                    Self.seal(
                        Array(secret), key: itemKey,
                        associatedData: Self.binding(
                            UInt8(ascii: "s"), uuid: uuid, sequence: sequence, primaryKey: primaryKey)),
                    sequence,
                    Date().timeIntervalSince1970, rowID,
                ])
            try record(kind: 2, uuid: uuid, primaryKey: primaryKey)
        }
    }

    func delete(service: String, account: String) throws {
        try inTransaction {
            let primaryKey = primaryKeyHash(service: service, account: account)
            let found = try database.first(
                "SELECT rowid, uuid FROM items WHERE tomb = 0 AND pk = ?", [primaryKey]
            ) { row in (sqlite3_column_int64(row, 0), Array(Self.blob(row, 1))) }
            guard let (rowID, uuid) = found else { throw BenchError("sealed floor: no item to delete") }
            try database.run("DELETE FROM items WHERE rowid = ?", [rowID])
            sequence += 1
            try record(kind: 3, uuid: uuid, primaryKey: primaryKey)
        }
    }

    func batchAdd(_ indices: Range<Int>, recorder: inout LatencyRecorder) throws {
        try database.batch(indices, recorder: &recorder, insert)
    }

    /// Runs `body` in one write transaction: one commit and one sync, as the engine's writes.
    private func inTransaction(_ body: () throws -> Void) throws {
        try database.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Appends the change record of the write that took ``sequence``, with its keyed MAC.
    private func record(kind: Int64, uuid: [UInt8], primaryKey: [UInt8]) throws {
        let mac = Self.hash(macKey) { state in
            for part in [Self.littleEndian(sequence), Self.littleEndian(kind), uuid, primaryKey] {
                Self.absorb(state, part)
            }
        }
        try database.run(
            "INSERT INTO changes (seq, kind, uuid, pk, mac) VALUES (?, ?, ?, ?, ?)",
            [sequence, kind, uuid, primaryKey, mac])
    }

    private func primaryKeyHash(service: String, account: String) -> [UInt8] {
        Self.hash(indexKey) { state in
            for part in ["genp", Self.group, service, account] { Self.absorb(state, part) }
        }
    }

    /// A blind index: the keyed hash of an attribute's value, named by the attribute.
    private func indexHash(_ attribute: String, _ value: String) -> [UInt8] {
        Self.hash(indexKey) { state in
            Self.absorb(state, attribute)
            Self.absorb(state, value)
        }
    }

    // MARK: Bytes and libsodium

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    private static func littleEndian(_ value: Int64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// The bytes of what binds a sealed part to its row's version: a tag (which part), the UUID, the change sequence
    /// and the primary-key hash.
    private static let bindingCount = 1 + 16 + 8 + 32

    private static func bind(
        _ tag: UInt8, uuid: UnsafeRawBufferPointer, sequence: Int64, primaryKey: [UInt8],
        into bytes: UnsafeMutableRawBufferPointer
    ) {
        bytes[0] = tag
        UnsafeMutableRawBufferPointer(rebasing: bytes[1..<17]).copyMemory(from: uuid)
        bytes.storeBytes(of: sequence.littleEndian, toByteOffset: 17, as: Int64.self)
        primaryKey.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[25...]).copyMemory(from: $0) }
    }

    private static func binding(_ tag: UInt8, uuid: [UInt8], sequence: Int64, primaryKey: [UInt8]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: bindingCount)
        bytes.withUnsafeMutableBytes { bytes in
            uuid.withUnsafeBytes { bind(tag, uuid: $0, sequence: sequence, primaryKey: primaryKey, into: bytes) }
        }
        return bytes
    }

    /// BLAKE2b-256 keyed by `key` over the parts `feed` absorbs (``absorb(_:_:)``), streamed: no message is built.
    /// The state lives on the stack, aligned as libsodium asks (Swift does not import its aligned type).
    private static func hash(_ key: [UInt8], _ feed: (OpaquePointer) -> Void) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        withUnsafeTemporaryAllocation(byteCount: crypto_generichash_statebytes(), alignment: 64) { raw in
            guard let base = raw.baseAddress else { return }
            let state = OpaquePointer(base)
            crypto_generichash_init(state, key, key.count, 32)
            feed(state)
            crypto_generichash_final(state, &output, 32)
        }
        return output
    }

    /// Absorbs one part and a zero byte after it, so that parts cannot run into each other.
    private static func absorb(_ state: OpaquePointer, _ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { part in
            _ = crypto_generichash_update(
                state, part.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        var zero: UInt8 = 0
        crypto_generichash_update(state, &zero, 1)
    }

    private static func absorb(_ state: OpaquePointer, _ text: String) {
        var text = text
        text.withUTF8 { absorb(state, UnsafeRawBufferPointer($0)) }
    }

    /// A random nonce, then the XChaCha20-Poly1305 ciphertext and tag.
    private static func seal(_ message: [UInt8], key: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        let nonceCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        var sealed = [UInt8](repeating: 0, count: message.count + sealOverhead)
        sealed.withUnsafeMutableBufferPointer { out in
            guard let nonce = out.baseAddress else { return }
            randombytes_buf(nonce, nonceCount)
            var length: UInt64 = 0
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                nonce + nonceCount, &length, message, UInt64(message.count), associatedData,
                UInt64(associatedData.count), nil, nonce, key)
        }
        return sealed
    }

    /// Opens `sealed` into `output`, which holds exactly its plaintext's bytes.
    private static func open(
        _ sealed: UnsafeRawBufferPointer, key: some ContiguousBytes, associatedData: some ContiguousBytes,
        into output: UnsafeMutableRawBufferPointer
    ) throws {
        let nonceCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        guard let nonce = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self),
            sealed.count == output.count + sealOverhead
        else { throw BenchError("sealed floor: a sealed value of the wrong size") }
        var length: UInt64 = 0
        let status = key.withUnsafeBytes { key -> Int32 in
            guard let key = key.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
            return associatedData.withUnsafeBytes { associatedData in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, nil, nonce + nonceCount,
                    UInt64(sealed.count - nonceCount), associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    UInt64(associatedData.count), nonce, key)
            }
        }
        guard status == 0 else { throw BenchError("sealed floor: a sealed value failed authentication") }
    }

    private static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        var plaintext = [UInt8](repeating: 0, count: max(0, sealed.count - sealOverhead))
        try sealed.withUnsafeBytes { sealed in
            try plaintext.withUnsafeMutableBytes {
                try open(sealed, key: key, associatedData: associatedData, into: $0)
            }
        }
        return plaintext
    }

    /// A blob of the current row, in place (valid until the statement moves on).
    private static func blob(_ row: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: sqlite3_column_blob(row, column), count: Int(sqlite3_column_bytes(row, column)))
    }
}
