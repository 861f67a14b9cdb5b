import Foundation

/// Seals items into rows and opens rows into items (DESIGN §3): a random item key per row, wrapped by its class
/// key; attributes and secret each sealed under the item key, bound to the row's identity by associated data.
///
/// Item keys pass through one scratch key in locked memory that is zeroed after every row. Not thread-safe: the
/// engine serialises access.
final class ItemSealer {
    private let scratch: SecretKey
    /// Reused between rows: the associated data being checked, and the plaintext (zeroed after every row).
    private var associatedData: [UInt8] = []
    private var plaintext: [UInt8] = []
    /// Rows with a sequence at or below this carry the first row binding (``RowBinding``).
    let legacyCeiling: Int64

    init(legacyCeiling: Int64) throws(EngineError) {
        scratch = try SecretKey.zeroed()
        self.legacyCeiling = legacyCeiling
    }

    /// Seals an item whose attributes are complete (group, accessibility, flag and dates included) as the version
    /// of its row with change sequence `sequence`; a tombstone keeps its attributes and has no secret.
    func seal(
        itemClass: ItemClass, attributes: ItemAttributes, data: Data, uuid: UUID, sequence: Int64,
        isTombstone: Bool = false, keybag: Keybag, access: AccessSealing? = nil
    ) throws(EngineError) -> StoredItem {
        let protectionClass = try ItemValidator.protectionClass(in: attributes) ?? .default
        let group = attributes.string(.accessGroup) ?? ""
        let synchronizable = attributes.bool(.synchronizable) ?? false
        let classKey = try keybag.key(for: protectionClass)
        let index = keybag.blindIndex
        var hashes: [AttributeKey: Data] = [:]
        for attribute in BlindIndex.indexedAttributes where itemClass.has(attribute) {
            hashes[attribute] = try index.attribute(attribute, attributes[attribute], itemClass: itemClass)
        }
        var item = StoredItem(
            uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: synchronizable,
            groupHash: try index.group(group),
            primaryKeyHash: try index.primaryKey(
                itemClass: itemClass, accessGroup: group, synchronizable: synchronizable, attributes: attributes),
            indexHashes: hashes,
            modificationTime: (attributes[.modificationDate]?.dateValue ?? Date()).timeIntervalSince1970,
            sequence: sequence, isTombstone: isTombstone, wrappedKey: Data(), metadata: Data(), secret: nil,
            accessGroup: group)
        if let kept = access?.itemKey {
            scratch.storage.withUnsafeMutableBytes { target in
                kept.withUnsafeBytes { target.copyMemory(from: $0) }
            }
        } else {
            scratch.storage.fillRandom()
        }
        defer { scratch.storage.zero() }
        item.wrappedKey = try AEAD.seal(key: scratch, under: classKey, associatedData: item.keyAssociatedData)
        var sealedAttributes = attributes
        if let access {
            let (envelope, digest) = try sealEnvelope(
                access, data: data, binding: Self.accessBinding(uuid: uuid, itemClass: itemClass), itemKey: scratch)
            item.accessFlags = access.constraint.flags.rawValue
            item.secret = envelope.encoded()
            sealedAttributes[.accessControl] = Self.storedAccessValue(access.constraint, digest: digest)
        }
        item.metadata = try AEAD.seal(
            Padding.pad(AttributeCoder.encode(sealedAttributes)), key: scratch,
            associatedData: item.sealAssociatedData(UInt8(ascii: "m")))
        if !isTombstone && access == nil {
            item.secret = try AEAD.seal(
                Padding.pad(data), key: scratch, associatedData: item.sealAssociatedData(UInt8(ascii: "s")))
        }
        return item
    }

    /// Opens a row: its attributes when `attributes` is set, its secret when `data` is set. Without attributes the
    /// secret is opened anyway, since its associated data is what authenticates the row's clear columns (a
    /// tombstone's metadata, which it has instead). A row that fails authentication, or that is not its item's
    /// latest version, is a decode error naming the item; an unavailable class is the keybag's error.
    func open(
        _ item: StoredRow, keybag: Keybag, attributes: Bool, data: Bool
    ) throws(EngineError) -> (ItemAttributes?, Data?) {
        guard item.latestChange == item.sequence else {
            throw .decode(
                "the stored item \(item.persistentReference) is not its latest version (change \(item.sequence), "
                    + (item.latestChange.map { "latest \($0)" } ?? "no change record")
                    + "): an older copy was put back or the database was damaged")
        }
        let legacy = item.sequence <= legacyCeiling
        let attributes = attributes || item.isTombstone
        let classKey = try keybag.key(for: item.protectionClass)
        defer {
            scratch.storage.zero()
            Sodium.wipe(&plaintext)
        }
        do throws(EngineError) {
            item.keyAssociatedData(into: &associatedData)
            try AEAD.open(key: item.wrappedKey, under: classKey, associatedData: associatedData, into: scratch)
            var opened: ItemAttributes?
            if attributes {
                item.sealAssociatedData(UInt8(ascii: "m"), legacy: legacy, into: &associatedData)
                try AEAD.open(item.metadata, key: scratch, associatedData: associatedData, into: &plaintext)
                opened = try AttributeCoder.decode(plaintext, range: try Padding.payload(of: plaintext))
            }
            guard data || !attributes || item.isTombstone else { return (opened, nil) }
            if item.isTombstone {
                guard item.secret == nil, !data else { throw EngineError.decode("a tombstone has no data") }
                return (opened, nil)
            }
            guard let secret = item.secret else { throw EngineError.decode("the item has no sealed data") }
            if attributes {
                associatedData[0] = UInt8(ascii: "s")  // the secret's associated data differs only in its tag
            } else {
                item.sealAssociatedData(UInt8(ascii: "s"), legacy: legacy, into: &associatedData)
            }
            try AEAD.open(secret, key: scratch, associatedData: associatedData, into: &plaintext)
            return (opened, data ? Data(plaintext[try Padding.payload(of: plaintext)]) : nil)
        } catch {
            throw .decode(
                "the stored item \(item.persistentReference) failed authentication: it was altered or moved (\(error.message))"
            )
        }
    }
}
