import Foundation
import KeychainCore

/// What an item version holds once opened: the item's class, its attributes (without dates: each device keeps its
/// own) and its secret.
struct ItemContent: Codable, Sendable, Equatable {
    var itemClass: ItemClass
    var attributes: ItemAttributes
    var data: Data

    /// The content of a stored item: its attributes without the dates.
    init(_ item: Item) {
        itemClass = item.itemClass
        var attributes = item.attributes
        attributes[.creationDate] = nil
        attributes[.modificationDate] = nil
        self.attributes = attributes
        data = item.data ?? Data()
    }

    /// The sync class key kind for the item's protection class.
    var keyClass: SyncKeyClass {
        attributes.string(.accessible) == ProtectionClass.whenUnlocked.rawValue ? .whenUnlocked : .afterFirstUnlock
    }

    /// The content as bytes that depend only on its values (attributes in name order, each tagged and
    /// length-prefixed), unlike its JSON, whose attribute order is a dictionary's.
    var canonicalBytes: Data {
        var bytes = Data(itemClass.rawValue.utf8)
        for (key, value) in attributes {
            bytes.append(contentsOf: Array(key.rawValue.utf8))
            let encoded: Data
            switch value {
            case .string(let text): encoded = Data("s".utf8) + Data(text.utf8)
            case .data(let data): encoded = Data("d".utf8) + data
            case .integer(let number): encoded = Data("i\(number)".utf8)
            case .date(let date): encoded = Data("t\(date.timeIntervalSince1970)".utf8)
            case .bool(let flag): encoded = Data(flag ? "b1".utf8 : "b0".utf8)
            }
            bytes.append(contentsOf: withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { Array($0) })
            bytes.append(encoded)
        }
        bytes.append(contentsOf: withUnsafeBytes(of: UInt32(data.count).littleEndian) { Array($0) })
        bytes.append(data)
        return bytes
    }

    /// The primary key (access group and the class's key attributes, missing ones as empty), as canonical bytes:
    /// two items with equal bytes cannot both be in one keychain.
    /// Each value is length-prefixed (found by review: with separators alone, an account holding one could make two
    /// different keys equal, and the lower-UUID rule would hide an item).
    var primaryKeyBytes: Data {
        var bytes = Data(itemClass.rawValue.utf8)
        for key in [AttributeKey.accessGroup] + itemClass.primaryKey {
            let value: [UInt8]
            switch attributes[key] {
            case .string(let text): value = Array(text.utf8)
            case .data(let data): value = Array(data)
            case .integer(let number): value = Array(String(number).utf8)
            case .none, .date, .bool: value = []
            }
            bytes.append(contentsOf: withUnsafeBytes(of: UInt32(value.count).littleEndian) { Array($0) })
            bytes.append(contentsOf: value)
        }
        return bytes
    }
}

/// Seals and opens item versions (DESIGN §12): a random item key per version, wrapped by a sync class key of an
/// epoch; the padded item sealed under it. The associated data binds both to the item's UUID, the key ids, the
/// epoch and the version (author and clock), so a payload moved to another item or version fails to open.
enum ItemSealing {
    /// Payloads are padded to a multiple of this, so a record shows only a bucket of the item's size.
    static let bucket = 256

    /// Seals `content` under the class key its accessibility needs (or `keyClass`: tests seal under the wrong one
    /// to see a receiver refuse it).
    static func seal(
        _ content: ItemContent, uuid: UUID, keys: EpochKeys, author: String, clock: HybridTime,
        under keyClass: SyncKeyClass? = nil
    ) throws(SyncError) -> SealedVersion {
        let keyClass = keyClass ?? content.keyClass
        let json: Data
        do {
            json = try JSONEncoder().encode(content)
        } catch {
            throw SyncError(.invalidArgument, "cannot encode item \(uuid): \(error)")
        }
        guard let classKey = keys.classKeys[keyClass] else {
            throw SyncError(.damaged, "epoch \(keys.id) has no \(keyClass.rawValue) key")
        }
        let context = self.context(uuid, keys.id, keyClass, author, clock)
        return try keychain("cannot seal item \(uuid)") { () throws(EngineError) -> SealedVersion in
            let itemKey = try SecretKey.random()
            return SealedVersion(
                uuid: uuid, epoch: keys.id, keyClass: keyClass,
                wrappedKey: try AEAD.seal(key: itemKey, under: classKey, associatedData: context + Array("|key".utf8)),
                payload: try AEAD.seal(
                    Padding.pad(json, bucket: bucket), key: itemKey, associatedData: context + Array("|item".utf8)))
        }
    }

    static func open(
        _ version: SealedVersion, keys: EpochKeys, author: String, clock: HybridTime
    ) throws(SyncError) -> ItemContent {
        guard let keyClass = version.keyClass, let wrappedKey = version.wrappedKey, let payload = version.payload,
            let classKey = keys.classKeys[keyClass]
        else { throw SyncError(.damaged, "the version of item \(version.uuid) lacks its key or payload") }
        let context = self.context(version.uuid, keys.id, keyClass, author, clock)
        let padded: [UInt8]
        do {
            let itemKey = try AEAD.open(key: wrappedKey, under: classKey, associatedData: context + Array("|key".utf8))
            padded = [UInt8](try AEAD.open(payload, key: itemKey, associatedData: context + Array("|item".utf8)))
            let range = try Padding.payload(of: padded)
            return try JSONDecoder().decode(ItemContent.self, from: Data(padded[range]))
        } catch {
            throw SyncError(.damaged, "the version of item \(version.uuid) by \(author) does not open: \(error)")
        }
    }

    private static func context(
        _ uuid: UUID, _ epoch: EpochID, _ keyClass: SyncKeyClass, _ author: String, _ clock: HybridTime
    ) -> [UInt8] {
        Array(
            "swift-keychain sync item v1|\(uuid.uuidString)|\(epoch.number)|\(epoch.creator)|\(keyClass.rawValue)|\(author)|\(clock.rawValue)"
                .utf8)
    }
}
