import Foundation

/// Checks attributes against a class's schema before anything is stored or searched: every rejection names the
/// attribute and the value at fault.
package enum ItemValidator {
    /// The largest secret the engine stores.
    static let maximumDataByteCount = 16 << 20
    /// The largest sum of attribute sizes.
    static let maximumAttributesByteCount = 1 << 20

    /// Checks that every attribute exists for the class and holds a value of its type and range.
    static func check(_ attributes: ItemAttributes, for itemClass: ItemClass) throws(EngineError) {
        for (key, value) in attributes {
            guard itemClass.has(key) else {
                throw EngineError(
                    .noSuchAttribute, "the attribute \"\(key.rawValue)\" does not exist for class \(itemClass.rawValue)"
                )
            }
            guard key.accepts(value) else {
                let expected = key.holdsTextOrBytes ? "string or data" : key.valueType.rawValue
                throw .param(
                    "the attribute \"\(key.rawValue)\" must be \(expected), not \(value.kind.rawValue) \(value)")
            }
            if case .integer(let number) = value, number < 0 || number > Int64(UInt32.max) {
                throw .param("the attribute \"\(key.rawValue)\" must be between 0 and \(UInt32.max), not \(number)")
            }
        }
        _ = try protectionClass(in: attributes)
        let total = attributes.reduce(0) { $0 + size(of: $1.value) }
        guard total <= maximumAttributesByteCount else {
            throw EngineError(
                .dataTooLarge, "the attributes total \(total) bytes; the limit is \(maximumAttributesByteCount)")
        }
    }

    /// What a value counts towards ``maximumAttributesByteCount``: its bytes, 8 for a number, a date or a flag.
    static func size(of value: AttributeValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .data(let data): data.count
        default: 8
        }
    }

    /// About how many bytes an item takes in a reply: its secret, its attributes and their names and framing.
    static func replySize(of attributes: ItemAttributes?, data: Data?) -> Int {
        let attributeBytes = attributes?.reduce(0) { $0 + 16 + size(of: $1.value) } ?? 0
        return 64 + (data?.count ?? 0) + attributeBytes
    }

    /// The protection class an attribute set names, if any.
    static func protectionClass(in attributes: ItemAttributes) throws(EngineError) -> ProtectionClass? {
        guard let value = attributes.string(.accessible) else { return nil }
        guard let protectionClass = ProtectionClass(rawValue: value) else {
            throw .param(
                "the accessibility \"\(value)\" is not one of \(ProtectionClass.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return protectionClass
    }

    /// Checks a secret's size.
    static func check(data: Data) throws(EngineError) {
        guard data.count <= maximumDataByteCount else {
            throw EngineError(.dataTooLarge, "the data is \(data.count) bytes; the limit is \(maximumDataByteCount)")
        }
    }

    /// Whether an item's data may leave the keychain: every item's may but a key's marked not extractable
    /// (`extr` false).
    package static func isExtractable(_ attributes: ItemAttributes) -> Bool {
        attributes.bool(.isExtractable) != false || attributes[.keyClass] == nil
    }

    /// A key's extractability holds: a non-extractable key stays in this keychain (it cannot be synchronizable) and
    /// never becomes extractable.
    static func checkKeyExtraction(
        _ attributes: ItemAttributes, itemClass: ItemClass, current: ItemAttributes?
    ) throws(EngineError) {
        guard itemClass == .key else { return }
        if let current, current.bool(.isExtractable) == false, attributes.bool(.isExtractable) != false {
            throw .param("a key that is not extractable (extr false) cannot be made extractable")
        }
        if attributes.bool(.isExtractable) == false, attributes.bool(.synchronizable) == true {
            throw .param(
                "a key that is not extractable (extr false) stays in this keychain: it cannot be synchronizable")
        }
    }

    /// Checks that a synchronizable item's class may leave the device.
    static func checkSynchronizable(_ synchronizable: Bool, _ protectionClass: ProtectionClass) throws(EngineError) {
        guard !(synchronizable && protectionClass.isThisDeviceOnly) else {
            throw .param(
                "a synchronizable item cannot have accessibility \(protectionClass.rawValue), which never leaves this device"
            )
        }
    }
}
