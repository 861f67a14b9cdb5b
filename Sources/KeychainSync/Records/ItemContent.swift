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

    /// The content as format 3 seals it: the class's four-character code, the attributes as the engine's binary
    /// form (``AttributeCoder``) after their `UInt32` little-endian length, then the secret to the end.
    var binary: [UInt8] {
        var bytes = Array(itemClass.rawValue.utf8)
        let attributes = AttributeCoder.encode(self.attributes)
        bytes.reserveCapacity(8 + attributes.count + data.count)
        bytes.appendLittleEndian(UInt32(attributes.count))
        bytes.append(contentsOf: attributes)
        bytes.append(contentsOf: data)
        return bytes
    }

    /// Reads the content from `bytes[range]` (``binary``), strictly: anything else is a decode error.
    init(binary bytes: [UInt8], range: Range<Int>) throws(EngineError) {
        var reader = ByteReader(bytes, range: range)
        guard let itemClass = ItemClass(rawValue: String(decoding: try reader.bytes(4), as: UTF8.self)) else {
            throw EngineError(.decode, "an item version names an unknown item class")
        }
        let attributes = try reader.lengthPrefixed()
        self.itemClass = itemClass
        self.attributes = try AttributeCoder.decode(bytes, range: attributes.startIndex..<attributes.endIndex)
        data = Data(bytes[attributes.endIndex..<min(range.upperBound, bytes.count)])
    }
}
