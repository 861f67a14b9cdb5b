/// An item attribute, with Apple's four-character name as its raw value.
public enum AttributeKey: String, Sendable, Codable, CaseIterable, Comparable {
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
        case .account: 0
        case .accessGroup: 1
        case .authenticationType: 2
        case .creationDate: 3
        case .creator: 4
        case .itemDescription: 5
        case .generic: 6
        case .comment: 7
        case .isInvisible: 8
        case .label: 9
        case .modificationDate: 10
        case .isNegative: 11
        case .path: 12
        case .accessible: 13
        case .port: 14
        case .`protocol`: 15
        case .securityDomain: 16
        case .server: 17
        case .service: 18
        case .synchronizable: 19
        case .type: 20
        }
    }

    /// Every attribute, ordered by four-character name (the order of ``slot``).
    static let byName: [AttributeKey] = allCases.sorted()

    /// The attributes every class has.
    static let common: [AttributeKey] = [
        .accessGroup, .accessible, .synchronizable, .creationDate, .modificationDate, .itemDescription, .comment,
        .creator, .type, .label, .isInvisible, .isNegative,
    ]

    /// The type of value the attribute holds.
    public var valueType: AttributeValue.Kind {
        switch self {
        case .accessGroup, .accessible, .itemDescription, .comment, .label, .account, .service, .securityDomain,
            .server, .protocol, .authenticationType, .path:
            .string
        case .generic: .data
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
