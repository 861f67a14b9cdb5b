import Foundation
import Keychain

/// What the verbs need of a generic or an internet password, so `add-`, `find-` and `delete-…-password` are each
/// written once for both classes. `GenericPassword` and `InternetPassword` already have every attribute; their
/// conformances add the class's own attribute lines, JSON and calls.
protocol PasswordItem: Sendable {
    /// The `Keychain` query that lists items of the class.
    associatedtype Query

    /// The class's four-character code: `genp` or `inet`.
    static var classCode: String { get }
    /// The attribute lines only this class has.
    var classAttributeLines: [AttributeLine] { get }
    /// The JSON members only this class has.
    var classJSON: [String: JSONValue] { get }
    /// The order listings print items in: by service (or server), then account, then access group.
    var listingOrder: [String] { get }

    var label: String? { get set }
    var itemDescription: String? { get set }
    var comment: String? { get set }
    var creator: UInt32? { get set }
    var type: UInt32? { get set }
    var accessGroup: String? { get set }
    var accessibility: Accessibility { get set }
    var accessControl: AccessControlFlags? { get set }
    var isSynchronizable: Bool { get set }
    var isInvisible: Bool { get set }
    var isNegative: Bool { get set }
    var creationDate: Date? { get }
    var modificationDate: Date? { get }

    /// The items a query matches, attributes only.
    static func items(matching query: Query, in keychain: Keychain) throws(KeychainError) -> [Self]
    /// At most `limit` of the items a query matches with their secrets, in one request; `nil` when one needs the
    /// user to authenticate.
    static func itemsWithSecrets(
        matching query: Query, limit: Int, in keychain: Keychain
    ) throws(KeychainError) -> [(item: Self, secret: Data)]?
    /// Adds the item with its secret; returns it as stored.
    func add(to keychain: Keychain, secret: Data) throws(KeychainError) -> Self
    /// Adds the item with its secret or, when one with its key exists, writes its attributes and secret over that
    /// one, in one transaction; returns it as stored.
    func addOrUpdate(in keychain: Keychain, secret: Data) throws(KeychainError) -> Self
    /// Removes the item; returns whether it was there.
    func remove(from keychain: Keychain) throws(KeychainError) -> Bool
    /// The item's secret, or `nil` when it is gone.
    func secret(in keychain: Keychain) throws(KeychainError) -> Data?
}

extension PasswordItem {
    /// Every attribute line, in macOS's order: the class's own, then those all items have (with this keychain's
    /// `agrp`, `pdmn` and `sync`, which macOS's file keychains lack).
    var attributeLines: [AttributeLine] {
        let common = [
            AttributeLine(.number(7), .blob, AttributeLine.text(label)),
            AttributeLine(.number(8), .blob, nil),
            AttributeLine("agrp", .blob, AttributeLine.text(accessGroup)),
            AttributeLine("cdat", .timedate, AttributeLine.date(creationDate)),
            AttributeLine("crtr", .uint32, AttributeLine.number(creator)),
            AttributeLine("cusi", .sint32, nil),
            AttributeLine("desc", .blob, AttributeLine.text(itemDescription)),
            AttributeLine("icmt", .blob, AttributeLine.text(comment)),
            AttributeLine("invi", .sint32, AttributeLine.flag(isInvisible)),
            AttributeLine("mdat", .timedate, AttributeLine.date(modificationDate)),
            AttributeLine("nega", .sint32, AttributeLine.flag(isNegative)),
            AttributeLine("pdmn", .blob, AttributeLine.text(accessibility.rawValue)),
            AttributeLine("prot", .blob, nil),
            AttributeLine("scrp", .sint32, nil),
            AttributeLine("sync", .sint32, AttributeLine.flag(isSynchronizable)),
            AttributeLine("type", .uint32, AttributeLine.number(type)),
        ]
        // macOS's tool has no accc line: it is printed only for an item with access control.
        let constraint = accessControl.map { [AttributeLine("accc", .blob, AttributeLine.text($0.names))] } ?? []
        return (classAttributeLines + common + constraint).sorted { $0.order < $1.order }
    }

    /// Every attribute as JSON members named by Apple's attribute keys; unset text and codes are left out.
    var attributesJSON: JSONValue {
        var members = classJSON
        members["pdmn"] = .string(accessibility.rawValue)
        members["accc"] = accessControl.map { .string($0.names) }
        members["sync"] = .bool(isSynchronizable)
        members["invi"] = .bool(isInvisible)
        members["nega"] = .bool(isNegative)
        members["agrp"] = accessGroup.map(JSONValue.string)
        members["labl"] = label.map(JSONValue.string)
        members["desc"] = itemDescription.map(JSONValue.string)
        members["icmt"] = comment.map(JSONValue.string)
        members["crtr"] = creator.map { .number(Int64($0)) }
        members["type"] = type.map { .number(Int64($0)) }
        members["cdat"] = creationDate.map(JSONValue.date)
        members["mdat"] = modificationDate.map(JSONValue.date)
        return .object(members)
    }
}

/// How the verbs turn options into items and queries, per class.
protocol PasswordItemOptions: PasswordItem {
    /// The item `add-…-password`'s options describe (access group, accessibility and secret are set by the verb).
    static func new(from arguments: ParsedArguments) throws(ToolFailure) -> Self
    /// What `find-` and `delete-…-password`'s options match.
    static func criteria(from arguments: ParsedArguments) throws(ToolFailure) -> ItemCriteria<Self>
}
