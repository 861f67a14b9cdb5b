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
    /// Whether the key is public (0), private (1) or symmetric (2) (`kcls`), keys only.
    case keyClass = "kcls"
    /// The key's application label (`klbl`), keys only: the SHA-1 of its public key, which a certificate's
    /// ``publicKeyHash`` matches.
    case applicationLabel = "klbl"
    /// The application's own tag for the key (`atag`), keys only.
    case applicationTag = "atag"
    /// The key's size in bits (`bsiz`), keys only.
    case keySizeInBits = "bsiz"
    /// The key's effective size in bits (`esiz`), keys only.
    case effectiveKeySize = "esiz"
    /// Whether the key is stored in the keychain (`perm`), keys only.
    case isPermanent = "perm"
    /// Whether the key's bytes may leave the keychain (`extr`), keys only.
    case isExtractable = "extr"
    /// Whether the key is sensitive (`sens`), keys only.
    case isSensitive = "sens"
    /// Whether the key can encrypt (`encr`), keys only.
    case canEncrypt = "encr"
    /// Whether the key can decrypt (`decr`), keys only.
    case canDecrypt = "decr"
    /// Whether the key can derive another (`drve`), keys only.
    case canDerive = "drve"
    /// Whether the key can sign (`sign`), keys only.
    case canSign = "sign"
    /// Whether the key can verify (`vrfy`), keys only.
    case canVerify = "vrfy"
    /// Whether the key can wrap another (`wrap`), keys only.
    case canWrap = "wrap"
    /// Whether the key can unwrap another (`unwp`), keys only.
    case canUnwrap = "unwp"
    /// The token the key lives in (`tkid`), keys only.
    case tokenID = "tkid"
    /// The certificate's type, 3 for X.509 version 3 (`ctyp`), certificates only.
    case certificateType = "ctyp"
    /// The certificate's encoding, 3 for DER (`cenc`), certificates only.
    case certificateEncoding = "cenc"
    /// The certificate's subject, its DER name (`subj`), certificates only.
    case subject = "subj"
    /// The certificate's issuer, its DER name (`issr`), certificates only.
    case issuer = "issr"
    /// The certificate's serial number, its DER content octets (`slnr`), certificates only.
    case serialNumber = "slnr"
    /// The certificate's subject key identifier (`skid`), certificates only.
    case subjectKeyID = "skid"
    /// The SHA-1 of the certified public key (`pkhh`), certificates only: its private key's ``applicationLabel``.
    case publicKeyHash = "pkhh"
    /// An alias, such as an e-mail address (`alis`), keys and certificates.
    case alias = "alis"
    /// Search terms (`sktm`, this keychain's own, not Apple's), generic passwords only: UTF-8 terms, each a 4-byte
    /// little-endian length and its bytes (``SearchTerms``). Each term has a blind index of its own, so a query
    /// naming some of an item's terms finds it without decrypting the items that lack them: the Secret Service's
    /// attribute maps, one term per name and value.
    case searchTerms = "sktm"

    /// The attribute's position in ``ItemAttributes``'s fixed storage: alphabetical by four-character name, so
    /// storage order is name order.
    var slot: Int {
        switch self {
        case .accessControl: 0
        case .account: 1
        case .accessGroup: 2
        case .alias: 3
        case .applicationTag: 4
        case .authenticationType: 5
        case .keySizeInBits: 6
        case .creationDate: 7
        case .certificateEncoding: 8
        case .creator: 9
        case .certificateType: 10
        case .canDecrypt: 11
        case .itemDescription: 12
        case .canDerive: 13
        case .canEncrypt: 14
        case .effectiveKeySize: 15
        case .isExtractable: 16
        case .generic: 17
        case .comment: 18
        case .isInvisible: 19
        case .issuer: 20
        case .keyClass: 21
        case .applicationLabel: 22
        case .label: 23
        case .modificationDate: 24
        case .isNegative: 25
        case .path: 26
        case .accessible: 27
        case .isPermanent: 28
        case .publicKeyHash: 29
        case .port: 30
        case .`protocol`: 31
        case .securityDomain: 32
        case .isSensitive: 33
        case .canSign: 34
        case .subjectKeyID: 35
        case .searchTerms: 36
        case .serialNumber: 37
        case .server: 38
        case .subject: 39
        case .service: 40
        case .synchronizable: 41
        case .tokenID: 42
        case .type: 43
        case .canUnwrap: 44
        case .canVerify: 45
        case .canWrap: 46
        }
    }

    /// Every attribute, ordered by four-character name (the order of ``slot``).
    static let byName: [AttributeKey] = allCases.sorted()

    /// Every attribute ordered by its four-character name read as a little-endian `UInt32` (``code``): what
    /// decoding a stored item looks each name up in (``init(code:)``), once per attribute of every item a search
    /// opens. A sorted array rather than a dictionary: a short-lived process (`security`) would otherwise pay the
    /// runtime's search of every protocol conformance in the binary for `UInt32: Hashable` on its first lookup.
    private static let byCode: [AttributeKey] = allCases.sorted { $0.code < $1.code }

    /// The attribute whose ``code`` is `code`, if any.
    init?(code: UInt32) {
        let sorted = Self.byCode
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = sorted[middle].code
            if candidate == code {
                self = sorted[middle]
                return
            }
            if candidate < code { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The four-character name as a little-endian `UInt32`.
    var code: UInt32 {
        rawValue.utf8.reversed().reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// The attributes every class has.
    static let common: [AttributeKey] = [
        .accessGroup, .accessible, .synchronizable, .creationDate, .modificationDate, .itemDescription, .comment,
        .creator, .type, .label, .isInvisible, .isNegative, .accessControl,
    ]

    /// The attributes keys and certificates share with every class (Apple's schema gives them no description,
    /// comment, invisible or negative flag).
    static let commonToCredentials: [AttributeKey] = [
        .accessGroup, .accessible, .synchronizable, .creationDate, .modificationDate, .label, .accessControl,
    ]

    /// The type of value the attribute holds.
    public var valueType: AttributeValue.Kind {
        switch self {
        case .accessGroup, .accessible, .itemDescription, .comment, .label, .account, .service, .securityDomain,
            .server, .protocol, .authenticationType, .path:
            .string
        case .tokenID: .string
        case .generic, .searchTerms, .accessControl, .applicationLabel, .applicationTag, .subject, .issuer,
            .serialNumber,
            .subjectKeyID, .publicKeyHash, .alias:
            .data
        case .creator, .type, .port, .keyClass, .keySizeInBits, .effectiveKeySize, .certificateType,
            .certificateEncoding:
            .integer
        case .synchronizable, .isInvisible, .isNegative, .isPermanent, .isExtractable, .isSensitive, .canEncrypt,
            .canDecrypt, .canDerive, .canSign, .canVerify, .canWrap, .canUnwrap:
            .bool
        case .creationDate, .modificationDate: .date
        }
    }

    /// Whether the attribute is one of Apple's blob attributes (`SecItemSchema.c`: `acct`, `svce`, `gena`, `labl`,
    /// `desc`, `icmt`, `srvr`, `sdmn`, `atyp`, `path`; a key's `klbl`, `atag`, a certificate's `subj`, `issr`,
    /// `slnr`, `skid`, `pkhh`, and `alis`), which hold text or bytes.
    ///
    /// Such a value is kept as it was given, text or bytes, and compared as bytes: text and its UTF-8 bytes match
    /// each other, hash the same in the blind indexes and count as one primary key.
    public var holdsTextOrBytes: Bool {
        switch self {
        case .account, .service, .generic, .label, .itemDescription, .comment, .server, .securityDomain,
            .authenticationType, .path, .applicationLabel, .applicationTag, .subject, .issuer, .serialNumber,
            .subjectKeyID, .publicKeyHash, .alias:
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
