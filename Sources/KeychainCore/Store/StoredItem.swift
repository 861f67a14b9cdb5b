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
    /// The blind indexes of its search terms (``AttributeKey/searchTerms``), one row of `item_terms` each.
    var termHashes: [Data] = []
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
            tag, .current,
            RowBinding.Columns(
                uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: synchronizable,
                isTombstone: isTombstone, sequence: sequence, modificationTime: modificationTime,
                accessFlags: accessFlags),
            groupHash: groupHash, primaryKeyHash: primaryKeyHash, service: indexHashes[.service],
            account: indexHashes[.account], server: indexHashes[.server], into: &bytes)
        return bytes
    }
}

/// What binds each sealed blob to its row (DESIGN §3): the associated data of the wrapped key (identity, class,
/// protection class) and of the metadata and secret (every clear column: also the synchronizable and tombstone
/// flags, the group, primary-key and attribute hashes, the change sequence, the modification time and the access
/// control flags). A blob moved to another row, a clear column changed under it, or an older version of the row
/// put back (its sequence is no longer its item's latest) fails.
///
/// Rows written by older builds (sequence at or below the counter's legacy ceiling) may still carry an older
/// binding until the engine seals them again (``ItemSealer/rebound(_:keybag:)``, once every class key is at hand):
/// the first covers the identity, flags and group and primary-key hashes only; the second all but the access
/// control flags. Each binding names its version first, so a row sealed under one never opens under another.
enum RowBinding {
    /// A binding's version: its second byte.
    enum Version: UInt8, CaseIterable {
        case first = 49, second = 50, third = 51  // "1", "2", "3"

        /// The binding new rows get.
        static let current = Version.third
    }

    /// The clear columns of a row that are not blobs.
    struct Columns {
        var uuid: UUID
        var itemClass: ItemClass
        var protectionClass: ProtectionClass
        var synchronizable: Bool
        var isTombstone: Bool
        var sequence: Int64
        var modificationTime: Double
        var accessFlags: UInt32
    }

    /// Writes the second or third binding of the metadata (`m`) or secret (`s`) into `bytes`, replacing its
    /// contents (the third is the second and the access control flags).
    static func sealAssociatedData(
        _ tag: UInt8, _ version: Version, _ columns: Columns, groupHash: some ContiguousBytes,
        primaryKeyHash: some ContiguousBytes, service: (some ContiguousBytes)?, account: (some ContiguousBytes)?,
        server: (some ContiguousBytes)?, into bytes: inout [UInt8]
    ) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(tag)
        bytes.append(version.rawValue)
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
        if version == .third { bytes.appendLittleEndian(columns.accessFlags) }
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
            let protectionClass = ProtectionClass(rawValue: row.text(3)),
            let accessFlags = UInt32(exactly: row.integer(17))
        else {
            let uuid = UUID(bytes: row.unsafeBlob(1)).map { " (UUID \($0.uuidString))" } ?? ""
            throw .decode("the stored item at row \(row.integer(0))\(uuid) has damaged clear columns")
        }
        self.rowID = row.integer(0)
        self.uuid = uuid
        self.itemClass = itemClass
        self.protectionClass = protectionClass
        self.synchronizable = row.integer(4) != 0
        self.isTombstone = row.integer(10) != 0
        self.sequence = row.integer(11)
        self.latestChange = row.isNull(16) ? nil : row.integer(16)
        self.accessFlags = accessFlags
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

    /// The metadata's or secret's associated data under a binding `version`.
    func sealAssociatedData(_ tag: UInt8, _ version: RowBinding.Version, into bytes: inout [UInt8]) {
        guard version != .first else {
            return RowBinding.sealAssociatedData(
                tag, uuid: uuid, itemClass: itemClass, synchronizable: synchronizable, groupHash: row.unsafeBlob(5),
                primaryKeyHash: row.unsafeBlob(6), protectionClass: protectionClass, into: &bytes)
        }
        func hash(_ column: Int32) -> UnsafeRawBufferPointer? { row.isNull(column) ? nil : row.unsafeBlob(column) }
        RowBinding.sealAssociatedData(
            tag, version,
            RowBinding.Columns(
                uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: synchronizable,
                isTombstone: isTombstone, sequence: sequence, modificationTime: row.real(12),
                accessFlags: accessFlags),
            groupHash: row.unsafeBlob(5), primaryKeyHash: row.unsafeBlob(6), service: hash(13), account: hash(14),
            server: hash(15), into: &bytes)
    }
}
