import Foundation
import KeychainCore

/// One four-character key of a dictionary, read as Apple's server reads attributes: the class's own attributes,
/// the synchronizable flag, the access control, and the keys Apple accepts and ignores.
enum AttributeEntry {
    /// A key Apple's server accepts and ignores (`nleg`, `musr`).
    case ignored
    /// `kSecAttrSynchronizable`.
    case synchronizable(SynchronizableValue)
    /// `kSecAttrAccessControl`.
    case accessControl(SecAccessControl)
    /// An attribute of the class, converted to its type.
    case attribute(AttributeKey, AttributeValue)

    /// Reads a key and its value; a key that is not an attribute of `itemClass` is `errSecNoSuchAttr`.
    init(_ key: String, _ value: Any, itemClass: ItemClass) throws(EngineError) {
        switch key {
        case SecItemKeys.dataProtectionKeychain, "musr":
            // kSecUseDataProtectionKeychain (this keychain is one) and the multi-user view (there is one user).
            self = .ignored
        case SecItemKeys.synchronizable:
            if let text = value as? String, text == SecItemKeys.synchronizableAny {
                self = .synchronizable(.any)
            } else if let flag = FoundationValue.flag(value) {
                self = .synchronizable(.flag(flag))
            } else {
                throw FoundationValue.wrongType(key, expected: "a Boolean or kSecAttrSynchronizableAny", value)
            }
        case SecItemKeys.accessControl:
            guard let accessControl = value as? SecAccessControl else {
                throw FoundationValue.wrongType(
                    key, expected: "a SecAccessControl (Unexpected type of kSecAttrAccessControl attribute)", value)
            }
            self = .accessControl(accessControl)
        default:
            guard let attribute = AttributeKey(rawValue: key), itemClass.has(attribute) else {
                throw EngineError(
                    .noSuchAttribute, "the attribute \"\(key)\" does not exist for class \(itemClass.rawValue)")
            }
            self = .attribute(attribute, try FoundationValue.attributeValue(value, for: attribute))
        }
    }
}

extension SecAccessControl {
    /// The protection class an add or update may store: an access control with constraints is refused, since they
    /// are not enforced yet and an item must never be stored without the protection it asks for.
    func checkedProtectionClass(alongside attributes: ItemAttributes) throws(EngineError) -> ProtectionClass {
        // Apple's SecItemAuthDoQuery (SecItem.m), on add and update: constraints never sync.
        if isConstrained, attributes.bool(.synchronizable) == true {
            throw EngineError(
                .param, "item with kSecAttrAccessControl is not synchronizable (kSecAttrSynchronizable is true)")
        }
        guard !isConstrained else {
            throw EngineError(
                .unimplemented,
                "kSecAttrAccessControl with constraints (\(flags.names)) is not implemented yet: access control is not enforced, so no item is stored or matched with it"
            )
        }
        if let accessible = attributes.string(.accessible), accessible != protectionClass.rawValue {
            throw EngineError(
                .param,
                "conflicting kSecAttrAccessible (\"\(accessible)\") and kSecAttrAccessControl (\"\(protectionClass.rawValue)\")"
            )
        }
        return protectionClass
    }
}
