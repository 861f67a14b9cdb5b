import Foundation
import KeychainCore

/// What ``GenericPassword`` and ``InternetPassword`` share: their class, the attributes every class has, and the
/// conversions to and from the engine's attributes. Internal, so the typed item API stays two concrete types.
protocol StoredItemValue: Sendable {
    /// The engine's class of the item.
    static var itemClass: ItemClass { get }
    /// The value of an item the engine returned.
    init(reading item: Item)
    /// The attributes only this class has, those that are set.
    var classAttributes: ItemAttributes { get }
    /// The class's primary-key attributes, absent ones as the empty value they count as.
    var primaryKeyAttributes: ItemAttributes { get }
    /// `generic password "alice" of service "api"`, for messages (never the secret).
    var summary: String { get }

    var accessGroup: String? { get set }
    var accessibility: Accessibility { get set }
    var accessControl: AccessControlFlags? { get set }
    var isSynchronizable: Bool { get set }
    var label: String? { get set }
    var itemDescription: String? { get set }
    var comment: String? { get set }
    var creator: UInt32? { get set }
    var type: UInt32? { get set }
    var isInvisible: Bool { get set }
    var isNegative: Bool { get set }
    var creationDate: Date? { get set }
    var modificationDate: Date? { get set }
    var persistentReference: Data? { get set }
}

extension StoredItemValue {
    /// The attributes to add the item with: those that are set.
    var attributesToAdd: ItemAttributes {
        var attributes = classAttributes.merging(commonAttributes)
        attributes[.accessGroup] = accessGroup.map { .string($0) }
        return attributes
    }

    /// The attributes to update the item with: every attribute, an unset one written as empty, since an update
    /// can change an attribute but not remove it (empty text, data or zero reads back as `nil`).
    var attributesToUpdate: ItemAttributes {
        var attributes = primaryKeyAttributes.merging(classAttributes).merging(commonAttributes)
        // An update keeps the item's access control: changing it means deleting the item and adding it again.
        attributes[.accessControl] = nil
        for key in [AttributeKey.label, .itemDescription, .comment] where attributes[key] == nil {
            attributes[key] = .string("")
        }
        for key in [AttributeKey.creator, .type] where attributes[key] == nil { attributes[key] = .integer(0) }
        if Self.itemClass.has(.generic), attributes[.generic] == nil { attributes[.generic] = .data(Data()) }
        attributes[.accessGroup] = accessGroup.map { .string($0) }
        return attributes
    }

    /// The query that finds exactly this item: its persistent reference when it has one, else its key.
    func identifyingQuery() throws(KeychainError) -> ItemQuery {
        if let data = persistentReference {
            guard let reference = PersistentReference(data: data), reference.itemClass == Self.itemClass else {
                throw KeychainError(
                    .param, "the item's persistent reference (\(data.count) bytes) is not one of a \(Self.itemClass)")
            }
            return ItemQuery(itemClass: Self.itemClass, synchronizable: .any, persistentReference: reference)
        }
        var attributes = primaryKeyAttributes
        attributes[.accessGroup] = accessGroup.map { .string($0) }
        attributes[.itemDescription] = itemDescription.map { .string($0) }
        attributes[.comment] = comment.map { .string($0) }
        attributes[.creator] = creator.map { .integer(Int64($0)) }
        attributes[.type] = type.map { .integer(Int64($0)) }
        return ItemQuery(
            itemClass: Self.itemClass, attributes: attributes, synchronizable: SynchronizableFilter(isSynchronizable))
    }

    /// Reads the attributes every class has, and what the keychain set (dates, persistent reference).
    mutating func readCommonAttributes(of item: Item) {
        let attributes = item.attributes
        func text(_ key: AttributeKey) -> String? { attributes.string(key).flatMap { $0.isEmpty ? nil : $0 } }
        func code(_ key: AttributeKey) -> UInt32? {
            attributes[key]?.integerValue.flatMap { $0 == 0 ? nil : UInt32(exactly: $0) }
        }
        accessGroup = attributes.string(.accessGroup)
        accessibility = attributes.string(.accessible).flatMap(Accessibility.init(rawValue:)) ?? .whenUnlocked
        isSynchronizable = attributes.bool(.synchronizable) ?? false
        accessControl = attributes[.accessControl].flatMap { try? AccessConstraint(attributeValue: $0).flags }
        label = text(.label)
        itemDescription = text(.itemDescription)
        comment = text(.comment)
        creator = code(.creator)
        type = code(.type)
        isInvisible = attributes.bool(.isInvisible) ?? false
        isNegative = attributes.bool(.isNegative) ?? false
        creationDate = attributes[.creationDate]?.dateValue
        modificationDate = attributes[.modificationDate]?.dateValue
        persistentReference = item.persistentReference.data
    }

    private var commonAttributes: ItemAttributes {
        var attributes: ItemAttributes = [
            .accessible: .string(accessibility.rawValue), .synchronizable: .bool(isSynchronizable),
            .isInvisible: .bool(isInvisible), .isNegative: .bool(isNegative),
        ]
        attributes[.label] = label.map { .string($0) }
        attributes[.accessControl] = accessControl.flatMap { try? AccessConstraint(flags: $0).attributeValue }
        attributes[.itemDescription] = itemDescription.map { .string($0) }
        attributes[.comment] = comment.map { .string($0) }
        attributes[.creator] = creator.map { .integer(Int64($0)) }
        attributes[.type] = type.map { .integer(Int64($0)) }
        return attributes
    }
}

/// What ``GenericPassword/Query`` and ``InternetPassword/Query`` share.
protocol StoredItemQuery: Sendable {
    /// The kind of item the query finds.
    associatedtype Value: StoredItemValue
    /// The class-specific attributes to match, those that are set.
    var classAttributes: ItemAttributes { get }
    var label: String? { get }
    var accessibility: Accessibility? { get }
    var accessGroup: String? { get }
    var synchronizable: Bool? { get }
    var itemDescription: String? { get }
    var comment: String? { get }
    var creator: UInt32? { get }
    var type: UInt32? { get }
}

extension StoredItemQuery {
    /// The engine query (no limit, no return options: callers add what they need).
    var itemQuery: ItemQuery {
        var attributes = classAttributes
        attributes[.label] = label.map { .string($0) }
        attributes[.accessible] = accessibility.map { .string($0.rawValue) }
        attributes[.accessGroup] = accessGroup.map { .string($0) }
        attributes[.itemDescription] = itemDescription.map { .string($0) }
        attributes[.comment] = comment.map { .string($0) }
        attributes[.creator] = creator.map { .integer(Int64($0)) }
        attributes[.type] = type.map { .integer(Int64($0)) }
        return ItemQuery(
            itemClass: Value.itemClass, attributes: attributes,
            synchronizable: synchronizable.map(SynchronizableFilter.init) ?? .any)
    }
}
