import Foundation

/// Checks attributes against a class's schema before anything is stored or searched: every rejection names the
/// attribute and the value at fault.
enum ItemValidator {
    /// The largest secret the engine stores.
    static let maximumDataByteCount = 16 << 20
    /// The largest sum of attribute sizes.
    static let maximumAttributesByteCount = 1 << 20

    /// Checks that every attribute exists for the class and holds a value of its type and range.
    static func check(_ attributes: ItemAttributes, for itemClass: ItemClass) throws(EngineError) {
        var size = 0
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
            switch value {
            case .integer(let number) where number < 0 || number > Int64(UInt32.max):
                throw .param("the attribute \"\(key.rawValue)\" must be between 0 and \(UInt32.max), not \(number)")
            case .string(let text): size += text.utf8.count
            case .data(let data): size += data.count
            default: size += 8
            }
        }
        _ = try protectionClass(in: attributes)
        guard size <= maximumAttributesByteCount else {
            throw EngineError(
                .dataTooLarge, "the attributes total \(size) bytes; the limit is \(maximumAttributesByteCount)")
        }
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

    /// Checks that a synchronizable item's class may leave the device.
    static func checkSynchronizable(_ synchronizable: Bool, _ protectionClass: ProtectionClass) throws(EngineError) {
        guard !(synchronizable && protectionClass.isThisDeviceOnly) else {
            throw .param(
                "a synchronizable item cannot have accessibility \(protectionClass.rawValue), which never leaves this device"
            )
        }
    }
}
