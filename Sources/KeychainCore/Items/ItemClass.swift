/// The class of a keychain item, with Apple's four-character name as its raw value.
public enum ItemClass: String, Sendable, Codable, CaseIterable {
    /// A generic password (`genp`): identified by account and service.
    case genericPassword = "genp"
    /// An internet password (`inet`): identified by account, security domain, server, protocol, authentication
    /// type, port and path.
    case internetPassword = "inet"
    /// A key (`keys`): identified by its class (public, private), application label, application tag, type and
    /// sizes. Its secret is the key's external representation (PKCS#1 for RSA, ANSI X9.63 for EC).
    case key = "keys"
    /// A certificate (`cert`): identified by its type, issuer and serial number. Its secret is its DER.
    case certificate = "cert"

    private static let genericPasswordKey: [AttributeKey] = [.account, .service]
    private static let internetPasswordKey: [AttributeKey] = [
        .account, .securityDomain, .server, .protocol, .authenticationType, .port, .path,
    ]
    // Apple's key primary key (SecItemSchema.c) also holds the start and end dates, which no key here has.
    private static let keyKey: [AttributeKey] = [
        .keyClass, .applicationLabel, .applicationTag, .type, .keySizeInBits, .effectiveKeySize,
    ]
    private static let certificateKey: [AttributeKey] = [.certificateType, .issuer, .serialNumber]
    private static let genericPasswordAttributes = AttributeKey.common + genericPasswordKey + [.generic, .searchTerms]
    private static let internetPasswordAttributes = AttributeKey.common + internetPasswordKey
    private static let keyAttributes =
        AttributeKey.commonToCredentials + keyKey + [
            .isPermanent, .isExtractable, .isSensitive, .canEncrypt, .canDecrypt, .canDerive, .canSign, .canVerify,
            .canWrap, .canUnwrap, .tokenID, .alias, .creator,
        ]
    private static let certificateAttributes =
        AttributeKey.commonToCredentials + certificateKey + [
            .certificateEncoding, .subject, .subjectKeyID, .publicKeyHash, .alias,
        ]

    /// The attributes an item of this class may carry, in the order they are presented.
    public var attributes: [AttributeKey] {
        switch self {
        case .genericPassword: Self.genericPasswordAttributes
        case .internetPassword: Self.internetPasswordAttributes
        case .key: Self.keyAttributes
        case .certificate: Self.certificateAttributes
        }
    }

    /// The attributes that form the item's primary key besides the access group and synchronizable flag
    /// (Apple's rule: two items with equal keys are duplicates, whatever their other attributes).
    public var primaryKey: [AttributeKey] {
        switch self {
        case .genericPassword: Self.genericPasswordKey
        case .internetPassword: Self.internetPasswordKey
        case .key: Self.keyKey
        case .certificate: Self.certificateKey
        }
    }

    /// Whether items of this class are passwords (their secret is the user's; keys and certificates have their
    /// own representation).
    public var isPassword: Bool { self == .genericPassword || self == .internetPassword }

    /// Whether `key` is an attribute of this class.
    public func has(_ key: AttributeKey) -> Bool {
        switch self {
        case .genericPassword: Self.genericPasswordMembers.contains(key)
        case .internetPassword: Self.internetPasswordMembers.contains(key)
        case .key: Self.keyMembers.contains(key)
        case .certificate: Self.certificateMembers.contains(key)
        }
    }

    private static let genericPasswordMembers = Set(genericPasswordAttributes)
    private static let internetPasswordMembers = Set(internetPasswordAttributes)
    private static let keyMembers = Set(keyAttributes)
    private static let certificateMembers = Set(certificateAttributes)
}
