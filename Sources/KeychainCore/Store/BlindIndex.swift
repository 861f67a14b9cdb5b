import Foundation

/// Keyed hashes (BLAKE2b under the keybag's index key) that let SQL find rows by value without storing the value:
/// the primary key, the service, account and server, and the access group.
///
/// Equal inputs give equal hashes, so SQL narrows a lookup to a few rows through an index; the decrypted metadata
/// then decides exactly. Not thread-safe: the engine serialises access.
final class BlindIndex {
    /// The size of an attribute or group hash; the primary-key hash is 32 bytes.
    static let attributeHashByteCount = 16

    /// The attributes that have a blind-index column.
    static let indexedAttributes: [AttributeKey] = [.service, .account, .server]

    private let key: SecretKey
    private var groupHashes: [String: Data] = [:]

    init(key: SecretKey) {
        self.key = key
    }

    /// The hash of an indexed attribute's value for a class (a missing one counts as empty). Text hashes as its
    /// UTF-8 bytes, so text and the same bytes find the same rows.
    func attribute(
        _ attribute: AttributeKey, _ value: AttributeValue?, itemClass: ItemClass
    ) throws(EngineError) -> Data {
        var input: [UInt8] = Array("attr".utf8) + [0]
        input.reserveCapacity(64)
        input.appendUTF8(attribute.rawValue)
        input.append(0)
        input.appendUTF8(itemClass.rawValue)
        input.append(0)
        switch value {
        case .string(let text): input.appendUTF8(text)
        case .data(let bytes): input.append(contentsOf: bytes)
        default: break  // The indexed attributes hold text or bytes (the validator sees to it).
        }
        return try KeyedHash.hash(input, key: key, outputByteCount: Self.attributeHashByteCount)
    }

    /// The hash of a search term (``AttributeKey/searchTerms``), one row of `item_terms`.
    func term(_ term: String) throws(EngineError) -> Data {
        var input: [UInt8] = Array("term".utf8) + [0]
        input.appendUTF8(term)
        return try KeyedHash.hash(input, key: key, outputByteCount: Self.attributeHashByteCount)
    }

    /// The hashes of access groups, in their order (a candidate filter's `groupHashes`).
    func groups(_ groups: [String]) throws(EngineError) -> [Data] {
        var hashes: [Data] = []
        hashes.reserveCapacity(groups.count)
        for group in groups { hashes.append(try self.group(group)) }
        return hashes
    }

    /// The hash of an access group (cached: a caller asks for the same few groups on every query).
    func group(_ group: String) throws(EngineError) -> Data {
        if let hash = groupHashes[group] { return hash }
        var input: [UInt8] = Array("agrp".utf8) + [0]
        input.appendUTF8(group)
        let hash = try KeyedHash.hash(input, key: key, outputByteCount: Self.attributeHashByteCount)
        if groupHashes.count > 1024 { groupHashes.removeAll() }
        groupHashes[group] = hash
        return hash
    }

    /// The hash of an item's primary key: class, access group, synchronizable and the class's key attributes,
    /// with missing ones counted as empty (Apple's rule). Text and data are both written as length and bytes, so
    /// text and its UTF-8 bytes are one key.
    func primaryKey(
        itemClass: ItemClass, accessGroup: String, synchronizable: Bool, attributes: ItemAttributes
    ) throws(EngineError) -> Data {
        var input: [UInt8] = []
        input.reserveCapacity(128)
        input.appendUTF8("pk1")
        input.append(0)
        input.appendUTF8(itemClass.rawValue)
        input.append(0)
        input.appendLengthPrefixedUTF8(accessGroup)
        input.append(synchronizable ? 1 : 0)
        for attribute in itemClass.primaryKey {
            input.appendUTF8(attribute.rawValue)
            switch attributes[attribute] ?? Self.emptyValue(of: attribute) {
            case .string(let text): input.appendLengthPrefixedUTF8(text)
            case .integer(let number): input.appendLittleEndian(UInt64(bitPattern: number))
            case .data(let data): input.appendLengthPrefixed(data)
            case .date, .bool: break
            }
        }
        return try KeyedHash.hash(input, key: key, outputByteCount: 32)
    }

    /// The value a missing primary-key attribute counts as: empty text, or zero.
    static func emptyValue(of attribute: AttributeKey) -> AttributeValue {
        attribute.valueType == .integer ? .integer(0) : .string("")
    }
}
