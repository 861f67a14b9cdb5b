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
    /// Applies the access control to an add's or update's attributes (its protection class, and for an add its
    /// constraint) or a query's (its protection class only). Apple's rules (SecItem.m, SecItemAuthDoQuery): a
    /// constraint never syncs; the rule, stricter than Apple's equal-values case: the accessibility is given
    /// once, so `kSecAttrAccessible` beside it is refused.
    func apply(to attributes: inout ItemAttributes, carryingConstraint: Bool) throws(EngineError) {
        if isConstrained, attributes.bool(.synchronizable) == true {
            throw EngineError(
                .param, "item with kSecAttrAccessControl is not synchronizable (kSecAttrSynchronizable is true)")
        }
        if let accessible = attributes.string(.accessible) {
            throw EngineError(
                .param,
                "kSecAttrAccessible (\"\(accessible)\") cannot be given with kSecAttrAccessControl, which carries the "
                    + "accessibility (\"\(protectionClass.rawValue)\")")
        }
        attributes[.accessible] = .string(protectionClass.rawValue)
        if carryingConstraint, isConstrained { attributes[.accessControl] = constraint.attributeValue }
    }
}
