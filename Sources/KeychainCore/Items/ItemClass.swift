/// The class of a keychain item, with Apple's four-character name as its raw value.
public enum ItemClass: String, Sendable, Codable, CaseIterable {
    /// A generic password (`genp`): identified by account and service.
    case genericPassword = "genp"
    /// An internet password (`inet`): identified by account, security domain, server, protocol, authentication
    /// type, port and path.
    case internetPassword = "inet"

    private static let genericPasswordKey: [AttributeKey] = [.account, .service]
    private static let internetPasswordKey: [AttributeKey] = [
        .account, .securityDomain, .server, .protocol, .authenticationType, .port, .path,
    ]
    private static let genericPasswordAttributes = AttributeKey.common + genericPasswordKey + [.generic]
    private static let internetPasswordAttributes = AttributeKey.common + internetPasswordKey

    /// The attributes an item of this class may carry, in the order they are presented.
    public var attributes: [AttributeKey] {
        switch self {
        case .genericPassword: Self.genericPasswordAttributes
        case .internetPassword: Self.internetPasswordAttributes
        }
    }

    /// The attributes that form the item's primary key besides the access group and synchronizable flag
    /// (Apple's rule: two items with equal keys are duplicates, whatever their other attributes).
    public var primaryKey: [AttributeKey] {
        switch self {
        case .genericPassword: Self.genericPasswordKey
        case .internetPassword: Self.internetPasswordKey
        }
    }

    /// Whether `key` is an attribute of this class.
    public func has(_ key: AttributeKey) -> Bool {
        switch key {
        case .service, .generic: self == .genericPassword
        case .securityDomain, .server, .protocol, .authenticationType, .port, .path: self == .internetPassword
        default: true
        }
    }

}
