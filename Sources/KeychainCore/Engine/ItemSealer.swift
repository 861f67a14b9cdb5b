import CSodium
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

    init() throws(EngineError) {
        scratch = try SecretKey.zeroed()
    }

    /// Seals an item whose attributes are complete (group, accessibility, flag and dates included).
    func seal(
        itemClass: ItemClass, attributes: ItemAttributes, data: Data, uuid: UUID, keybag: Keybag
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
            wrappedKey: Data(), metadata: Data(), secret: nil)
        scratch.storage.fillRandom()
        defer { scratch.storage.zero() }
        item.wrappedKey = try AEAD.seal(key: scratch, under: classKey, associatedData: item.keyAssociatedData)
        item.metadata = try AEAD.seal(
            Padding.pad(AttributeCoder.encode(attributes)), key: scratch,
            associatedData: item.sealAssociatedData(UInt8(ascii: "m")))
        item.secret = try AEAD.seal(
            Padding.pad(data), key: scratch, associatedData: item.sealAssociatedData(UInt8(ascii: "s")))
        return item
    }

    /// Opens a row: its attributes when `attributes` is set, its secret when `data` is set. Without attributes the
    /// secret is opened anyway, since its associated data is what authenticates the row's primary-key hash. A row
    /// that fails authentication is a decode error naming the item; an unavailable class is the keybag's error.
    func open(
        _ item: StoredRow, keybag: Keybag, attributes: Bool, data: Bool
    ) throws(EngineError) -> (ItemAttributes?, Data?) {
        let classKey = try keybag.key(for: item.protectionClass)
        defer {
            scratch.storage.zero()
            plaintext.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
        }
        do throws(EngineError) {
            item.keyAssociatedData(into: &associatedData)
            try AEAD.open(key: item.wrappedKey, under: classKey, associatedData: associatedData, into: scratch)
            var opened: ItemAttributes?
            if attributes {
                item.sealAssociatedData(UInt8(ascii: "m"), into: &associatedData)
                try AEAD.open(item.metadata, key: scratch, associatedData: associatedData, into: &plaintext)
                opened = try AttributeCoder.decode(plaintext, range: try Padding.payload(of: plaintext))
            }
            guard data || !attributes else { return (opened, nil) }
            guard let secret = item.secret else { throw EngineError.decode("the item has no sealed data") }
            if attributes {
                associatedData[0] = UInt8(ascii: "s")  // the secret's associated data differs only in its tag
            } else {
                item.sealAssociatedData(UInt8(ascii: "s"), into: &associatedData)
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
