import Foundation

/// An item row as stored: the clear columns the engine needs before it can decrypt, and the sealed blobs.
struct StoredItem {
    var uuid: UUID
    var itemClass: ItemClass
    var protectionClass: ProtectionClass
    var synchronizable: Bool
    var groupHash: Data
    var primaryKeyHash: Data
    var indexHashes: [AttributeKey: Data]
    var modificationTime: Double
    /// The change sequence of this version of the row, bound into its associated data.
    var sequence: Int64
    /// Whether the row is a synchronizable item's tombstone (no secret).
    var isTombstone = false
    var wrappedKey: Data
    var metadata: Data
    var secret: Data?
    /// The access group in clear, for the change record (never stored in the row, which has its hash).
    var accessGroup: String?
    /// The access control flags (`AccessConstraint.Flags`), 0 for an item without access control.
    var accessFlags: UInt32 = 0

    /// The item's persistent reference.
    var persistentReference: PersistentReference { PersistentReference(itemClass: itemClass, uuid: uuid) }

    /// The associated data of the wrapped item key.
    var keyAssociatedData: [UInt8] {
        var bytes: [UInt8] = []
        RowBinding.keyAssociatedData(uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, into: &bytes)
        return bytes
    }

    /// The associated data of the metadata (`m`) or secret (`s`): every clear column of the row.
    func sealAssociatedData(_ tag: UInt8) -> [UInt8] {
        var bytes: [UInt8] = []
        RowBinding.sealAssociatedData(
            tag,
            RowBinding.Columns(
                uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: synchronizable,
                isTombstone: isTombstone, sequence: sequence, modificationTime: modificationTime),
            groupHash: groupHash, primaryKeyHash: primaryKeyHash, service: indexHashes[.service],
            account: indexHashes[.account], server: indexHashes[.server], into: &bytes)
        return bytes
    }
}

/// What binds each sealed blob to its row (DESIGN §3): the associated data of the wrapped key (identity, class,
/// protection class) and of the metadata and secret (every clear column: also the synchronizable and tombstone
/// flags, the group, primary-key and attribute hashes, the change sequence and the modification time). A blob
/// moved to another row, a clear column changed under it, or an older version of the row put back (its sequence
/// is no longer its item's latest) fails.
///
/// Rows sealed before the change log existed (sequence at or below the log's legacy ceiling) carry the first
/// binding, which covers the identity, flags and group and primary-key hashes only.
enum RowBinding {
    /// The clear columns of a row that are not blobs.
    struct Columns {
        var uuid: UUID
        var itemClass: ItemClass
        var protectionClass: ProtectionClass
        var synchronizable: Bool
        var isTombstone: Bool
        var sequence: Int64
        var modificationTime: Double
    }

    /// Writes the second binding of the metadata (`m`) or secret (`s`) into `bytes`, replacing its contents.
    static func sealAssociatedData(
        _ tag: UInt8, _ columns: Columns, groupHash: some ContiguousBytes, primaryKeyHash: some ContiguousBytes,
        service: (some ContiguousBytes)?, account: (some ContiguousBytes)?, server: (some ContiguousBytes)?,
        into bytes: inout [UInt8]
    ) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(tag)
        bytes.append(UInt8(ascii: "2"))
        bytes.appendUUID(columns.uuid)
        bytes.appendLengthPrefixedUTF8(columns.itemClass.rawValue)
        bytes.appendLengthPrefixedUTF8(columns.protectionClass.rawValue)
        bytes.append(columns.synchronizable ? 1 : 0)
        bytes.append(columns.isTombstone ? 1 : 0)
        bytes.appendLittleEndian(columns.sequence)
        bytes.appendLittleEndian(columns.modificationTime.bitPattern)
        bytes.appendLengthPrefixed(groupHash)
        bytes.appendLengthPrefixed(primaryKeyHash)
        appendOptional(service, to: &bytes)
        appendOptional(account, to: &bytes)
        appendOptional(server, to: &bytes)
    }

    /// A nullable hash column: a presence byte, then the length-prefixed bytes.
    private static func appendOptional(_ hash: (some ContiguousBytes)?, to bytes: inout [UInt8]) {
        guard let hash else { return bytes.append(0) }
        bytes.append(1)
        bytes.appendLengthPrefixed(hash)
    }

    /// Writes the wrapped key's associated data into `bytes`, replacing its contents.
    static func keyAssociatedData(
        uuid: UUID, itemClass: ItemClass, protectionClass: ProtectionClass, into bytes: inout [UInt8]
    ) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(UInt8(ascii: "k"))
        bytes.append(UInt8(ascii: "1"))
        bytes.appendUUID(uuid)
        bytes.appendUTF8(itemClass.rawValue)
        bytes.appendUTF8(protectionClass.rawValue)
    }

    /// Writes the metadata's or secret's associated data into `bytes`, replacing its contents.
    static func sealAssociatedData(
        _ tag: UInt8, uuid: UUID, itemClass: ItemClass, synchronizable: Bool,
        groupHash: some ContiguousBytes, primaryKeyHash: some ContiguousBytes, protectionClass: ProtectionClass,
        into bytes: inout [UInt8]
    ) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(tag)
        bytes.append(UInt8(ascii: "1"))
        bytes.appendUUID(uuid)
        bytes.appendUTF8(itemClass.rawValue)
        bytes.append(synchronizable ? 1 : 0)
        groupHash.withUnsafeBytes { bytes.append(contentsOf: $0) }
        primaryKeyHash.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.appendUTF8(protectionClass.rawValue)
    }
}

/// A candidate row as a query reads it: its clear columns, and its sealed columns read in place from SQLite's
/// memory (valid only inside the query's row callback).
struct StoredRow {
    var rowID: Int64
    var uuid: UUID
    var itemClass: ItemClass
    var protectionClass: ProtectionClass
    var synchronizable: Bool
    var isTombstone: Bool
    /// The change sequence of this version of the row.
    var sequence: Int64
    /// The sequence of the item's latest change record, or `nil` when the log has none.
    var latestChange: Int64?
    /// The access control flags in clear (0: none); the sealed metadata must say the same.
    var accessFlags: UInt32
    private let row: Row

    /// The columns a candidate query selects, in ``init(_:)``'s order; the last is the item's latest change.
    static let columns = """
        rowid, uuid, class, pdmn, sync, agrp, pk, wrapped_key, metadata, secret, tomb, seq, mdat, svce, acct, srvr, \
        (SELECT MAX(changes.seq) FROM changes WHERE changes.uuid = items.uuid), acl
        """

    /// Reads a row selected with ``columns``; a clear column that is not one the engine writes is a decode error.
    init(_ row: Row) throws(EngineError) {
        guard let uuid = UUID(bytes: row.unsafeBlob(1)),
            let itemClass = ItemClass(rawValue: row.text(2)),
            let protectionClass = ProtectionClass(rawValue: row.text(3))
        else {
            throw .decode("the stored item at row \(row.integer(0)) has damaged clear columns")
        }
        self.rowID = row.integer(0)
        self.uuid = uuid
        self.itemClass = itemClass
        self.protectionClass = protectionClass
        self.synchronizable = row.integer(4) != 0
        self.isTombstone = row.integer(10) != 0
        self.sequence = row.integer(11)
        self.latestChange = row.isNull(16) ? nil : row.integer(16)
        self.accessFlags = UInt32(truncatingIfNeeded: row.integer(17))
        self.row = row
    }

    /// The primary-key hash column.
    var primaryKeyHash: UnsafeRawBufferPointer { row.unsafeBlob(6) }
    /// The access-group hash column.
    var groupHash: UnsafeRawBufferPointer { row.unsafeBlob(5) }

    /// The item's persistent reference.
    var persistentReference: PersistentReference { PersistentReference(itemClass: itemClass, uuid: uuid) }

    var wrappedKey: UnsafeRawBufferPointer { row.unsafeBlob(7) }
    var metadata: UnsafeRawBufferPointer { row.unsafeBlob(8) }
    /// The sealed secret, or `nil` for a tombstone.
    var secret: UnsafeRawBufferPointer? { row.isNull(9) ? nil : row.unsafeBlob(9) }

    func keyAssociatedData(into bytes: inout [UInt8]) {
        RowBinding.keyAssociatedData(uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, into: &bytes)
    }

    /// The metadata's or secret's associated data: the second binding, or the first for a legacy row.
    func sealAssociatedData(_ tag: UInt8, legacy: Bool, into bytes: inout [UInt8]) {
        guard !legacy else {
            return RowBinding.sealAssociatedData(
                tag, uuid: uuid, itemClass: itemClass, synchronizable: synchronizable, groupHash: row.unsafeBlob(5),
                primaryKeyHash: row.unsafeBlob(6), protectionClass: protectionClass, into: &bytes)
        }
        func hash(_ column: Int32) -> UnsafeRawBufferPointer? { row.isNull(column) ? nil : row.unsafeBlob(column) }
        RowBinding.sealAssociatedData(
            tag,
            RowBinding.Columns(
                uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: synchronizable,
                isTombstone: isTombstone, sequence: sequence, modificationTime: row.real(12)),
            groupHash: row.unsafeBlob(5), primaryKeyHash: row.unsafeBlob(6), service: hash(13), account: hash(14),
            server: hash(15), into: &bytes)
    }
}
