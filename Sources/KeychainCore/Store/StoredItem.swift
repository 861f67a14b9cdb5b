import Foundation

/// An item row as stored: the clear columns the engine needs before it can decrypt, and the sealed blobs.
struct StoredItem {
    var uuid: Data
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
    var persistentReference: PersistentReference? {
        UUID(bytes: uuid).map { PersistentReference(itemClass: itemClass, uuid: $0) }
    }

    /// The associated data of the wrapped item key: the row's identity and class.
    var keyAssociatedData: [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "k"), UInt8(ascii: "1")]
        bytes.reserveCapacity(32)
        uuid.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: itemClass.rawValue.utf8)
        bytes.append(contentsOf: protectionClass.rawValue.utf8)
        return bytes
    }

    /// The associated data of the metadata (`m`) or secret (`s`): identity, class, flags, group and primary key.
    func sealAssociatedData(_ tag: UInt8) -> [UInt8] {
        var bytes: [UInt8] = [tag, UInt8(ascii: "1")]
        bytes.reserveCapacity(80)
        uuid.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: itemClass.rawValue.utf8)
        bytes.append(synchronizable ? 1 : 0)
        groupHash.withUnsafeBytes { bytes.append(contentsOf: $0) }
        primaryKeyHash.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: protectionClass.rawValue.utf8)
        return bytes
    }
}

/// A stored row and its database row id.
struct StoredRow {
    var rowID: Int64
    var item: StoredItem

    /// The columns a candidate query selects, in ``init(_:)``'s order.
    static let columns = "rowid, uuid, class, pdmn, sync, agrp, pk, mdat, wrapped_key, metadata, secret"

    /// Reads a row selected with ``columns``; a clear column that is not one the engine writes is a decode error.
    init(_ row: Row) throws(EngineError) {
        let uuid = row.blob(1) ?? Data()
        guard let itemClass = ItemClass(rawValue: row.text(2)),
            let protectionClass = ProtectionClass(rawValue: row.text(3)),
            uuid.count == 16
        else {
            throw .decode("the stored item at row \(row.integer(0)) has damaged clear columns")
        }
        rowID = row.integer(0)
        item = StoredItem(
            uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: row.integer(4) != 0,
            groupHash: row.blob(5) ?? Data(), primaryKeyHash: row.blob(6) ?? Data(), indexHashes: [:],
            modificationTime: row.real(7), wrappedKey: row.blob(8) ?? Data(), metadata: row.blob(9) ?? Data(),
            secret: row.blob(10))
    }
}
