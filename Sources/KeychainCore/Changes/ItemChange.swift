import Foundation

/// One change to an item, as the change feed reports it (``KeychainBackend/changes(since:for:limit:)``).
///
/// It carries only what a locked keychain may reveal (DESIGN §9): which item changed and how, its class, access
/// group, protection class and synchronizable flag, and when. Never its data, and never its service, account,
/// server, label or other sealed attributes: reading the feed needs no class key.
public struct ItemChange: Sendable, Hashable, Codable {
    /// What a change did to its item.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The item was added.
        case added
        /// The item's attributes or data changed (also an accessibility migration).
        case updated
        /// The item was deleted (by a delete, the passcode's removal, or the erase after wrong passcodes); a
        /// synchronizable item leaves a tombstone for sync, reported as a removal too.
        case removed
    }

    /// The change's sequence: strictly increasing and never reused in this keychain.
    public var sequence: Int64
    /// What happened.
    public var kind: Kind
    /// The item's persistent reference (its class and UUID).
    public var persistentReference: PersistentReference
    /// The item's access group; `nil` only for a change recorded before the feed kept groups (schema 2 and
    /// earlier) of an item not written since.
    public var accessGroup: String?
    /// The item's protection class after the change (before it, for a removal).
    public var protectionClass: ProtectionClass
    /// Whether the item is synchronizable.
    public var isSynchronizable: Bool
    /// When the change was made (the item's `mdat`; the time of the removal for a removal).
    public var modificationDate: Date

    /// The item's class.
    public var itemClass: ItemClass { persistentReference.itemClass }

    /// Creates a change value.
    public init(
        sequence: Int64, kind: Kind, persistentReference: PersistentReference, accessGroup: String?,
        protectionClass: ProtectionClass, isSynchronizable: Bool, modificationDate: Date
    ) {
        self.sequence = sequence
        self.kind = kind
        self.persistentReference = persistentReference
        self.accessGroup = accessGroup
        self.protectionClass = protectionClass
        self.isSynchronizable = isSynchronizable
        self.modificationDate = modificationDate
    }
}

/// A page of the change feed: the changes a caller may see after a sequence, oldest first, and where to go on.
public struct ChangeBatch: Sendable, Hashable, Codable {
    /// The changes, oldest first, only of the caller's access groups.
    public var changes: [ItemChange]
    /// The sequence to pass to the next call: the last change this page examined, whether or not the caller may
    /// see it (so a reader never examines a record twice). Equal to the request's sequence when nothing is new.
    /// Through keychaind it passes no change the caller may not see, so it tells nothing of other groups' writes.
    public var cursor: Int64
    /// Whether more changes may follow right away (the page was cut at its limit).
    public var hasMore: Bool

    /// Creates a page.
    public init(changes: [ItemChange], cursor: Int64, hasMore: Bool) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
