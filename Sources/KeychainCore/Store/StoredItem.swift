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
    var wrappedKey: Data
    var metadata: Data
    var secret: Data?

    /// The item's persistent reference.
    var persistentReference: PersistentReference { PersistentReference(itemClass: itemClass, uuid: uuid) }

    /// The associated data of the wrapped item key.
    var keyAssociatedData: [UInt8] {
        var bytes: [UInt8] = []
        RowBinding.keyAssociatedData(uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, into: &bytes)
        return bytes
    }

    /// The associated data of the metadata (`m`) or secret (`s`).
    func sealAssociatedData(_ tag: UInt8) -> [UInt8] {
        var bytes: [UInt8] = []
        RowBinding.sealAssociatedData(
            tag, uuid: uuid, itemClass: itemClass, synchronizable: synchronizable, groupHash: groupHash,
            primaryKeyHash: primaryKeyHash, protectionClass: protectionClass, into: &bytes)
        return bytes
    }
}

/// What binds each sealed blob to its row (DESIGN §3): the associated data of the wrapped key (identity, class,
/// protection class) and of the metadata and secret (also the synchronizable flag, group and primary-key hashes).
/// A blob moved to another row, or a clear column changed under it, fails to open.
enum RowBinding {
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
    private let row: Row

    /// The columns a candidate query selects, in ``init(_:)``'s order.
    static let columns = "rowid, uuid, class, pdmn, sync, agrp, pk, wrapped_key, metadata, secret"

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
        self.row = row
    }

    /// The item's persistent reference.
    var persistentReference: PersistentReference { PersistentReference(itemClass: itemClass, uuid: uuid) }

    var wrappedKey: UnsafeRawBufferPointer { row.unsafeBlob(7) }
    var metadata: UnsafeRawBufferPointer { row.unsafeBlob(8) }
    /// The sealed secret, or `nil` for a tombstone.
    var secret: UnsafeRawBufferPointer? { row.isNull(9) ? nil : row.unsafeBlob(9) }

    func keyAssociatedData(into bytes: inout [UInt8]) {
        RowBinding.keyAssociatedData(uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, into: &bytes)
    }

    func sealAssociatedData(_ tag: UInt8, into bytes: inout [UInt8]) {
        RowBinding.sealAssociatedData(
            tag, uuid: uuid, itemClass: itemClass, synchronizable: synchronizable, groupHash: row.unsafeBlob(5),
            primaryKeyHash: row.unsafeBlob(6), protectionClass: protectionClass, into: &bytes)
    }
}
