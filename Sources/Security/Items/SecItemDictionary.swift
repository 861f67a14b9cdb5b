import Foundation
import KeychainCore
import KeychainPrompts

/// A SecItem dictionary (the attributes of an add, or a query) sorted by what each key means, before an operation's
/// own rules apply.
///
/// Keys are recognised as Apple's server recognises them: `class`; any four-character key is an attribute, and one
/// the class lacks is `errSecNoSuchAttr`; other keys belong to a family by their prefix (`r_` return, `m_` match,
/// `v_` value, `u_` use) and an unknown one is `errSecParam`. Keys are read in sorted order, so when several are
/// wrong the same one is reported every time.
struct SecItemDictionary {
    /// The class the dictionary names, or the class of its persistent reference.
    var itemClass: ItemClass
    /// The class the dictionary names with `kSecClass`.
    var explicitClass: ItemClass?
    /// The attributes, without the synchronizable flag (kept in ``synchronizable``).
    var attributes = ItemAttributes()
    /// `kSecAttrSynchronizable`, when present.
    var synchronizable: SynchronizableValue?
    /// `kSecAttrAccessControl`, when present.
    var accessControl: SecAccessControl?
    /// Whether the dictionary names the identity class (`kSecClassIdentity`): a certificate joined with the private
    /// key of its public key. ``itemClass`` is then ``ItemClass/certificate``, and the key's own attributes are in
    /// ``identityKeyAttributes``.
    var isIdentity = false
    /// For an identity, the attributes only its private key has (`atag`, say).
    var identityKeyAttributes = ItemAttributes()
    /// `kSecValueData`, when present.
    var data: Data?
    /// `kSecValueRef`, when present: a `SecKey`, `SecCertificate` or `SecIdentity` of the dictionary's class.
    var reference: AnyObject?
    /// `kSecValuePersistentRef`, when present.
    var persistentReference: PersistentReference?
    /// What the `kSecReturn…` keys set to true ask for (``returnsReference`` aside).
    var returning: ReturnOptions = []
    /// The `kSecReturn…` keys present, true or false.
    var returnKeys: [String] = []
    /// Whether `kSecReturnRef` is true (for a password: Apple's dictionary of class, attributes and data).
    var returnsReference = false
    /// `kSecMatchLimit`, when present.
    var limit: MatchLimit?
    /// The `kSecMatch…` keys present.
    var matchKeys: [String] = []
    /// `kSecMatchCaseInsensitive`.
    var caseInsensitive = false
    /// `kSecUseAuthenticationUI` (or the deprecated `kSecUseNoAuthenticationUI`).
    var authenticationUI = AuthenticationUI.allow
    /// `kSecUseAuthenticationContext`: an `LAContext` (or the context it wraps).
    var authenticationContext: AuthenticationContext?
    /// `kSecUseOperationPrompt`.
    var operationPrompt: String?

    /// The values of `kSecUseAuthenticationUI`.
    enum AuthenticationUI {
        case allow
        case fail
        case skip

        /// The choice a `kSecUseAuthenticationUI…` value names, or `nil` for another string.
        init?(_ value: String) {
            switch value {
            case SecItemKeys.useAuthenticationUIAllow: self = .allow
            case SecItemKeys.useAuthenticationUIFail: self = .fail
            case SecItemKeys.useAuthenticationUISkip: self = .skip
            default: return nil
            }
        }
    }

    /// The most keys a dictionary may hold (Apple's `QUERY_KEY_LIMIT`).
    static let maximumKeyCount = 128

    /// Sorts a dictionary's keys; throws for the first key (in sorted order) that is unknown or of the wrong type.
    init(_ dictionary: NSDictionary) throws(EngineError) {
        let entries = try Self.entries(of: dictionary)
        if let value = entries.first(where: { $0.key == SecItemKeys.itemClass })?.value {
            (explicitClass, isIdentity) = try Self.itemClass(value)
        } else if let value = entries.first(where: { $0.key == SecItemKeys.valueReference })?.value {
            // Apple's server takes the class of an object given without one.
            (explicitClass, isIdentity) = Self.itemClass(ofReference: value)
        }
        if let value = entries.first(where: { $0.key == SecItemKeys.valuePersistentReference })?.value {
            persistentReference = try Self.persistentReference(value)
        }
        guard let itemClass = explicitClass ?? persistentReference?.itemClass else {
            throw .init(.param, "the dictionary names no item class: kSecClass (\"class\") is missing")
        }
        self.itemClass = itemClass
        for (key, value) in entries
        where key != SecItemKeys.itemClass && key != SecItemKeys.valuePersistentReference {
            try add(key, value)
        }
    }

    /// The entries, keys checked to be strings, in sorted order.
    static func entries(of dictionary: NSDictionary) throws(EngineError) -> [(key: String, value: Any)] {
        guard dictionary.count <= maximumKeyCount else {
            throw .init(.param, "the dictionary has \(dictionary.count) keys; at most \(maximumKeyCount) are allowed")
        }
        var entries: [(key: String, value: Any)] = []
        for (key, value) in dictionary {
            guard let name = key as? String else {
                throw .init(.param, "every key must be a string, not \(FoundationValue.describe(key))")
            }
            entries.append((name, value))
        }
        return entries.sorted { $0.key < $1.key }
    }

    private mutating func add(_ key: String, _ value: Any) throws(EngineError) {
        if key.utf16.count == 4, isIdentity, let attribute = AttributeKey(rawValue: key),
            !ItemClass.certificate.has(attribute), ItemClass.key.has(attribute)
        {
            // An identity's query may name its private key's attributes too.
            if case .attribute(let attribute, let attributeValue) = try AttributeEntry(key, value, itemClass: .key) {
                identityKeyAttributes[attribute] = attributeValue
            }
        } else if key.utf16.count == 4 {
            switch try AttributeEntry(key, value, itemClass: itemClass) {
            case .ignored: break
            case .synchronizable(let synchronizable): self.synchronizable = synchronizable
            case .accessControl(let accessControl): self.accessControl = accessControl
            case .attribute(let attribute, let attributeValue): attributes[attribute] = attributeValue
            }
        } else if key == SecItemKeys.persistentReferenceAttribute {
            // Apple's server skips the persistent-reference attribute in every dictionary.
        } else if key.hasPrefix("r_") {
            try addReturn(key, value)
        } else if key.hasPrefix("m_") {
            try addMatch(key, value)
        } else if key.hasPrefix("v_") {
            try addValue(key, value)
        } else if key.hasPrefix("u_") {
            try addUse(key, value)
        } else {
            throw .init(.param, "the key \"\(key)\" is not a keychain key")
        }
    }

    private mutating func addReturn(_ key: String, _ value: Any) throws(EngineError) {
        let options: [String: ReturnOptions] = [
            SecItemKeys.returnData: .data, SecItemKeys.returnAttributes: .attributes,
            SecItemKeys.returnPersistentReference: .persistentReference, SecItemKeys.returnReference: [],
        ]
        guard let option = options[key] else {
            throw .init(.param, "the return key \"\(key)\" is not one of Apple's kSecReturn… keys")
        }
        let wanted = try FoundationValue.requireBoolean(value, for: key)
        returnKeys.append(key)
        if key == SecItemKeys.returnReference {
            returnsReference = wanted
        } else if wanted {
            returning.insert(option)
        }
    }

    private mutating func addMatch(_ key: String, _ value: Any) throws(EngineError) {
        switch key {
        case SecItemKeys.matchLimit: limit = try Self.matchLimit(value)
        case SecItemKeys.matchCaseInsensitive: caseInsensitive = try FoundationValue.requireBoolean(value, for: key)
        default:
            throw .init(
                .param,
                "the match key \"\(key)\" is not supported: password items take only kSecMatchLimit and kSecMatchCaseInsensitive"
            )
        }
        matchKeys.append(key)
    }

    private mutating func addValue(_ key: String, _ value: Any) throws(EngineError) {
        switch key {
        case SecItemKeys.valueData: data = try FoundationValue.requireData(value, for: key)
        case SecItemKeys.valueReference:
            let matches: Bool
            switch (itemClass, isIdentity) {
            case (.key, _): matches = value is SecKey
            case (.certificate, false): matches = value is SecCertificate
            case (.certificate, true): matches = value is SecIdentity
            default:
                throw .init(.param, "kSecValueRef (\"v_Ref\") is not supported: password items have no item reference")
            }
            guard matches else {
                throw FoundationValue.wrongType(
                    key, expected: "a \(isIdentity ? "SecIdentity" : itemClass == .key ? "SecKey" : "SecCertificate")",
                    value)
            }
            reference = value as AnyObject
        default: throw .init(.param, "the value key \"\(key)\" is not one of Apple's kSecValue… keys")
        }
    }

    private mutating func addUse(_ key: String, _ value: Any) throws(EngineError) {
        switch key {
        case SecItemKeys.useAuthenticationUI:
            let text = try FoundationValue.requireString(value, for: key)
            guard let choice = AuthenticationUI(text) else {
                throw .init(
                    .param,
                    "the value of \"u_AuthUI\" must be kSecUseAuthenticationUIAllow, …Fail or …Skip, not \"\(text)\"")
            }
            authenticationUI = choice
        case SecItemKeys.useNoAuthenticationUI:
            if try FoundationValue.requireBoolean(value, for: key) { authenticationUI = .fail }
        case SecItemKeys.useOperationPrompt: operationPrompt = try FoundationValue.requireString(value, for: key)
        case SecItemKeys.useAuthenticationContext:
            guard
                let context = (value as? AuthenticationContextProviding)?.authenticationContext
                    ?? (value as? AuthenticationContext)
            else {
                throw FoundationValue.wrongType(key, expected: "an LAContext", value)
            }
            authenticationContext = context
        default: throw .init(.param, "the use key \"\(key)\" is not supported")
        }
    }

    /// The class a `kSecClass` value names, and whether it is the identity class.
    private static func itemClass(_ value: Any) throws(EngineError) -> (ItemClass, Bool) {
        let name = try FoundationValue.requireString(value, for: SecItemKeys.itemClass)
        if let itemClass = ItemClass(rawValue: name) { return (itemClass, false) }
        if name == SecItemKeys.identity { return (.certificate, true) }
        throw .init(.noSuchClass, "the class \"\(name)\" is not an item class (genp, inet, keys, cert, idnt)")
    }

    /// The class of a `kSecValueRef` object, or none for another object (reported when the value is read).
    private static func itemClass(ofReference value: Any) -> (ItemClass?, Bool) {
        switch value {
        case is SecKey: (.key, false)
        case is SecCertificate: (.certificate, false)
        case is SecIdentity: (.certificate, true)
        default: (nil, false)
        }
    }

    private static func persistentReference(_ value: Any) throws(EngineError) -> PersistentReference {
        let data = try FoundationValue.requireData(value, for: SecItemKeys.valuePersistentReference)
        guard let reference = PersistentReference(data: data) else {
            throw .init(
                .param, "the value of \"v_PersistentRef\" (\(data.count) bytes) is not a valid persistent reference")
        }
        return reference
    }

    private static func matchLimit(_ value: Any) throws(EngineError) -> MatchLimit {
        if let text = value as? String {
            switch text {
            case SecItemKeys.matchLimitOne: return .one
            case SecItemKeys.matchLimitAll: return .all
            default:
                throw .init(
                    .param, "the value of \"m_Limit\" must be kSecMatchLimitOne, kSecMatchLimitAll or a number")
            }
        }
        guard FoundationValue.boolean(value) == nil, let count = FoundationValue.integer(value) else {
            throw FoundationValue.wrongType(
                SecItemKeys.matchLimit, expected: "kSecMatchLimitOne, kSecMatchLimitAll or a number", value)
        }
        guard count >= 1, count <= Int.max else {
            throw .init(.param, "the match limit must be at least 1, not \(count)")
        }
        return count == 1 ? .one : .upTo(Int(count))
    }
}

/// The value of `kSecAttrSynchronizable`.
enum SynchronizableValue: Equatable {
    /// `true` or `false`.
    case flag(Bool)
    /// `kSecAttrSynchronizableAny`: both kinds (queries only; an add or update ignores it, as Apple's server does).
    case any
}
