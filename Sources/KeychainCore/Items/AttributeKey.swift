/// An item attribute, with Apple's four-character name as its raw value.
public enum AttributeKey: String, Sendable, Codable, CaseIterable, Comparable {
    /// What using the item's secret requires (`accc`, `kSecAttrAccessControl`): an ``AccessConstraint``'s
    /// ``AccessConstraint/attributeValue``. Set when the item is added; a stored item's also carries the digest of
    /// its sealed secret.
    case accessControl = "accc"
    /// The access group the item belongs to (`agrp`).
    case accessGroup = "agrp"
    /// The protection class, i.e. when the item can be read (`pdmn`).
    case accessible = "pdmn"
    /// Whether the item is synchronized between the user's devices (`sync`).
    case synchronizable = "sync"
    /// When the item was created (`cdat`).
    case creationDate = "cdat"
    /// When the item was last modified (`mdat`).
    case modificationDate = "mdat"
    /// A user-visible description of the kind of item (`desc`).
    case itemDescription = "desc"
    /// A user-editable comment (`icmt`).
    case comment = "icmt"
    /// The item's creator, a four-character code (`crtr`).
    case creator = "crtr"
    /// The item's type, a four-character code (`type`).
    case type = "type"
    /// A user-visible label (`labl`).
    case label = "labl"
    /// Whether the item is invisible to users (`invi`).
    case isInvisible = "invi"
    /// Whether the item holds no valid password (`nega`).
    case isNegative = "nega"
    /// The account name (`acct`).
    case account = "acct"
    /// The service (`svce`), generic passwords only.
    case service = "svce"
    /// Application-defined data (`gena`), generic passwords only.
    case generic = "gena"
    /// The security domain or realm (`sdmn`), internet passwords only.
    case securityDomain = "sdmn"
    /// The server's host name or address (`srvr`), internet passwords only.
    case server = "srvr"
    /// The protocol, a four-character code such as `htps` (`ptcl`), internet passwords only.
    case `protocol` = "ptcl"
    /// The authentication scheme, a four-character code such as `form` (`atyp`), internet passwords only.
    case authenticationType = "atyp"
    /// The port (`port`), internet passwords only.
    case port = "port"
    /// The path (`path`), internet passwords only.
    case path = "path"

    /// The attribute's position in ``ItemAttributes``'s fixed storage: alphabetical by four-character name, so
    /// storage order is name order.
    var slot: Int {
        switch self {
        case .accessControl: 0
        case .account: 1
        case .accessGroup: 2
        case .authenticationType: 3
        case .creationDate: 4
        case .creator: 5
        case .itemDescription: 6
        case .generic: 7
        case .comment: 8
        case .isInvisible: 9
        case .label: 10
        case .modificationDate: 11
        case .isNegative: 12
        case .path: 13
        case .accessible: 14
        case .port: 15
        case .`protocol`: 16
        case .securityDomain: 17
        case .server: 18
        case .service: 19
        case .synchronizable: 20
        case .type: 21
        }
    }

    /// Every attribute, ordered by four-character name (the order of ``slot``).
    static let byName: [AttributeKey] = allCases.sorted()

    /// The attributes every class has.
    static let common: [AttributeKey] = [
        .accessGroup, .accessible, .synchronizable, .creationDate, .modificationDate, .itemDescription, .comment,
        .creator, .type, .label, .isInvisible, .isNegative, .accessControl,
    ]

    /// The type of value the attribute holds.
    public var valueType: AttributeValue.Kind {
        switch self {
        case .accessGroup, .accessible, .itemDescription, .comment, .label, .account, .service, .securityDomain,
            .server, .protocol, .authenticationType, .path:
            .string
        case .generic, .accessControl: .data
        case .creator, .type, .port: .integer
        case .synchronizable, .isInvisible, .isNegative: .bool
        case .creationDate, .modificationDate: .date
        }
    }

    /// Whether the attribute is one of Apple's blob attributes (`SecItemSchema.c`: `acct`, `svce`, `gena`, `labl`,
    /// `desc`, `icmt`, `srvr`, `sdmn`, `atyp`, `path`), which hold text or bytes.
    ///
    /// Such a value is kept as it was given, text or bytes, and compared as bytes: text and its UTF-8 bytes match
    /// each other, hash the same in the blind indexes and count as one primary key.
    public var holdsTextOrBytes: Bool {
        switch self {
        case .account, .service, .generic, .label, .itemDescription, .comment, .server, .securityDomain,
            .authenticationType, .path:
            true
        default: false
        }
    }

    /// Whether `value` is of the attribute's type: ``valueType``, or text or bytes for a blob attribute.
    public func accepts(_ value: AttributeValue) -> Bool {
        value.kind == valueType || (holdsTextOrBytes && [.string, .data].contains(value.kind))
    }

    /// Orders attributes by their four-character name.
    public static func < (lhs: AttributeKey, rhs: AttributeKey) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
