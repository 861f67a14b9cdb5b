import Foundation
import KeychainCore

/// An internet password (`kSecClassInternetPassword`): a secret for an account on a server, with all of its
/// attributes. Like ``GenericPassword`` it holds attributes only, never the secret.
///
/// The item's key is its account, security domain, server, protocol, authentication type, port and path (plus
/// access group and synchronizable flag); an absent one counts as empty (`nil`, `""` and port `0` are the same
/// key, and read back as `nil`).
public struct InternetPassword: Sendable, Hashable, Codable {
    /// The account (`acct`).
    public var account: String
    /// The server's host name or address (`srvr`).
    public var server: String
    /// The protocol (`ptcl`).
    public var `protocol`: InternetProtocol?
    /// The authentication scheme (`atyp`).
    public var authenticationType: AuthenticationType?
    /// The port (`port`), 1 to 4294967295; `nil` for none.
    public var port: Int?
    /// The path (`path`).
    public var path: String?
    /// The security domain or realm (`sdmn`).
    public var securityDomain: String?

    /// The access group (`agrp`): `nil` on a new item means the caller's first group; read items carry theirs.
    public var accessGroup: String?
    /// When the item can be read (`pdmn`).
    public var accessibility: Accessibility
    /// What reading the item's secret requires beyond its accessibility (`accc`), set when it is added: the
    /// keychain passcode for `.userPresence`/`.devicePasscode`, its own password for `.applicationPassword`.
    public var accessControl: AccessControlFlags?
    /// Whether the item is synchronized to the user's other devices (`sync`), part of the item's key.
    public var isSynchronizable: Bool
    /// A user-visible label (`labl`).
    public var label: String?
    /// A user-visible description of the kind of item (`desc`).
    public var itemDescription: String?
    /// A user-editable comment (`icmt`).
    public var comment: String?
    /// The item's creator, a four-character code (`crtr`).
    public var creator: UInt32?
    /// The item's type, a four-character code (`type`).
    public var type: UInt32?
    /// Whether the item is hidden from users (`invi`).
    public var isInvisible: Bool
    /// Whether the item holds no valid password (`nega`).
    public var isNegative: Bool
    /// When the item was created (`cdat`): set by the keychain, `nil` on a new item.
    public internal(set) var creationDate: Date?
    /// When the item was last modified (`mdat`): set by the keychain, `nil` on a new item.
    public internal(set) var modificationDate: Date?
    /// The item's persistent reference (20 bytes, stable across runs): set by the keychain, `nil` on a new item.
    /// Updating or removing an item that has one acts on exactly that item, even if its key attributes were edited.
    public internal(set) var persistentReference: Data?

    /// Creates an internet password to add.
    public init(
        account: String, server: String, protocol: InternetProtocol? = nil,
        authenticationType: AuthenticationType? = nil, port: Int? = nil, path: String? = nil,
        securityDomain: String? = nil, accessGroup: String? = nil, accessibility: Accessibility = .whenUnlocked,
        isSynchronizable: Bool = false, label: String? = nil
    ) {
        self.account = account
        self.server = server
        self.protocol = `protocol`
        self.authenticationType = authenticationType
        self.port = port
        self.path = path
        self.securityDomain = securityDomain
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.isSynchronizable = isSynchronizable
        self.label = label
        self.isInvisible = false
        self.isNegative = false
    }

    /// Which internet passwords to list, remove, migrate or watch: every attribute given must match exactly.
    public struct Query: Sendable, Hashable {
        /// The account, or `nil` for any.
        public var account: String?
        /// The server, or `nil` for any.
        public var server: String?
        /// The protocol, or `nil` for any.
        public var `protocol`: InternetProtocol?
        /// The authentication type, or `nil` for any.
        public var authenticationType: AuthenticationType?
        /// The port, or `nil` for any.
        public var port: Int?
        /// The path, or `nil` for any.
        public var path: String?
        /// The security domain, or `nil` for any.
        public var securityDomain: String?
        /// The label, or `nil` for any.
        public var label: String?
        /// The accessibility, or `nil` for any.
        public var accessibility: Accessibility?
        /// The access group, or `nil` for every group the caller is entitled to.
        public var accessGroup: String?
        /// `false` for local items (the default, as Apple's), `true` for synchronizable ones, `nil` for both.
        public var synchronizable: Bool?
        /// The description (kind, `kSecAttrDescription`), or `nil` for any.
        public var itemDescription: String?
        /// The comment, or `nil` for any.
        public var comment: String?
        /// The creator code, or `nil` for any.
        public var creator: UInt32?
        /// The type code, or `nil` for any.
        public var type: UInt32?

        /// Creates a query; with no arguments it matches every local internet password the caller can see.
        public init(
            account: String? = nil, server: String? = nil, protocol: InternetProtocol? = nil,
            authenticationType: AuthenticationType? = nil, port: Int? = nil, path: String? = nil,
            securityDomain: String? = nil, label: String? = nil, accessibility: Accessibility? = nil,
            accessGroup: String? = nil, synchronizable: Bool? = false
        ) {
            self.account = account
            self.server = server
            self.protocol = `protocol`
            self.authenticationType = authenticationType
            self.port = port
            self.path = path
            self.securityDomain = securityDomain
            self.label = label
            self.accessibility = accessibility
            self.accessGroup = accessGroup
            self.synchronizable = synchronizable
        }
    }
}

extension InternetPassword: StoredItemValue {
    static let itemClass = ItemClass.internetPassword

    init(reading item: Item) {
        let attributes = item.attributes
        func text(_ key: AttributeKey) -> String? { attributes.string(key).flatMap { $0.isEmpty ? nil : $0 } }
        self.init(account: attributes.string(.account) ?? "", server: attributes.string(.server) ?? "")
        self.protocol = text(.protocol).map(InternetProtocol.init(rawValue:))
        authenticationType = text(.authenticationType).map(AuthenticationType.init(rawValue:))
        port = attributes[.port]?.integerValue.flatMap { $0 == 0 ? nil : Int($0) }
        path = text(.path)
        securityDomain = text(.securityDomain)
        readCommonAttributes(of: item)
    }

    var classAttributes: ItemAttributes {
        var attributes: ItemAttributes = [.account: .string(account), .server: .string(server)]
        attributes[.protocol] = self.protocol.map { .string($0.rawValue) }
        attributes[.authenticationType] = authenticationType.map { .string($0.rawValue) }
        attributes[.port] = port.map { .integer(Int64($0)) }
        attributes[.path] = path.map { .string($0) }
        attributes[.securityDomain] = securityDomain.map { .string($0) }
        return attributes
    }

    var primaryKeyAttributes: ItemAttributes {
        [
            .account: .string(account), .server: .string(server), .protocol: .string(self.protocol?.rawValue ?? ""),
            .authenticationType: .string(authenticationType?.rawValue ?? ""), .port: .integer(Int64(port ?? 0)),
            .path: .string(path ?? ""), .securityDomain: .string(securityDomain ?? ""),
        ]
    }
}

extension InternetPassword {
    var summary: String { "internet password \"\(account)\" on server \"\(server)\"" }
}

extension InternetPassword.Query: StoredItemQuery {
    typealias Value = InternetPassword

    var classAttributes: ItemAttributes {
        var attributes = ItemAttributes()
        attributes[.account] = account.map { .string($0) }
        attributes[.server] = server.map { .string($0) }
        attributes[.protocol] = self.protocol.map { .string($0.rawValue) }
        attributes[.authenticationType] = authenticationType.map { .string($0.rawValue) }
        attributes[.port] = port.map { .integer(Int64($0)) }
        attributes[.path] = path.map { .string($0) }
        attributes[.securityDomain] = securityDomain.map { .string($0) }
        return attributes
    }
}
