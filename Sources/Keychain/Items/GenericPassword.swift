import Foundation
import KeychainCore

/// A generic password (`kSecClassGenericPassword`): a secret identified by an account and a service, with all of
/// its attributes. The value holds attributes only, never the secret: enumerating items cannot leak secrets in
/// bulk, and the value is safe to log. `secret(for:)` reads the secret of one item.
///
/// Two generic passwords with the same account, service, access group and synchronizable flag are the same item
/// (adding the second throws ``KeychainError/duplicateItem``); every other attribute can differ.
public struct GenericPassword: Sendable, Hashable, Codable {
    /// The account (`acct`), part of the item's key.
    public var account: String
    /// The service (`svce`), part of the item's key.
    public var service: String
    /// Application-defined data stored with the item (`gena`), encrypted with the other attributes but not a secret:
    /// enumeration returns it. Empty data reads back as `nil`.
    public var generic: Data?

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

    /// Creates a generic password to add.
    public init(
        account: String, service: String, accessGroup: String? = nil, accessibility: Accessibility = .whenUnlocked,
        isSynchronizable: Bool = false, label: String? = nil, generic: Data? = nil
    ) {
        self.account = account
        self.service = service
        self.generic = generic
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.isSynchronizable = isSynchronizable
        self.label = label
        self.isInvisible = false
        self.isNegative = false
    }

    /// Which generic passwords to list, remove, migrate or watch: every attribute given must match exactly.
    public struct Query: Sendable, Hashable {
        /// The account, or `nil` for any.
        public var account: String?
        /// The service, or `nil` for any.
        public var service: String?
        /// The label, or `nil` for any.
        public var label: String?
        /// The accessibility, or `nil` for any.
        public var accessibility: Accessibility?
        /// The access group, or `nil` for every group the caller is entitled to.
        public var accessGroup: String?
        /// `false` for local items (the default, as Apple's), `true` for synchronizable ones, `nil` for both.
        public var synchronizable: Bool?
        /// The generic attribute, or `nil` for any.
        public var generic: Data?
        /// The description (kind, `kSecAttrDescription`), or `nil` for any.
        public var itemDescription: String?
        /// The comment, or `nil` for any.
        public var comment: String?
        /// The creator code, or `nil` for any.
        public var creator: UInt32?
        /// The type code, or `nil` for any.
        public var type: UInt32?

        /// Creates a query; with no arguments it matches every local generic password the caller can see.
        public init(
            account: String? = nil, service: String? = nil, label: String? = nil,
            accessibility: Accessibility? = nil, accessGroup: String? = nil, synchronizable: Bool? = false
        ) {
            self.account = account
            self.service = service
            self.label = label
            self.accessibility = accessibility
            self.accessGroup = accessGroup
            self.synchronizable = synchronizable
        }
    }
}

extension GenericPassword: StoredItemValue {
    static let itemClass = ItemClass.genericPassword

    init(reading item: Item) {
        let attributes = item.attributes
        self.init(account: attributes.string(.account) ?? "", service: attributes.string(.service) ?? "")
        generic = attributes[.generic]?.dataValue.flatMap { $0.isEmpty ? nil : $0 }
        readCommonAttributes(of: item)
    }

    var classAttributes: ItemAttributes {
        var attributes: ItemAttributes = [.account: .string(account), .service: .string(service)]
        attributes[.generic] = generic.map { .data($0) }
        return attributes
    }

    var primaryKeyAttributes: ItemAttributes { [.account: .string(account), .service: .string(service)] }

    var summary: String { "generic password \"\(account)\" of service \"\(service)\"" }
}

extension GenericPassword.Query: StoredItemQuery {
    typealias Value = GenericPassword

    var classAttributes: ItemAttributes {
        var attributes = ItemAttributes()
        attributes[.account] = account.map { .string($0) }
        attributes[.service] = service.map { .string($0) }
        attributes[.generic] = generic.map { .data($0) }
        return attributes
    }
}
