/// A change to an item, as ``Keychain/changes()`` reports it: what happened and the item's attributes (never its
/// secret).
public enum KeychainChange<Item: Sendable>: Sendable {
    /// The item was added.
    case added(Item)
    /// The item was changed; it carries the attributes it has now (which may no longer match the watched query,
    /// when the change moved it out).
    case updated(Item)
    /// The item was removed; it carries the attributes it had.
    case removed(Item)

    /// The item the change is about.
    public var item: Item {
        switch self {
        case .added(let item), .updated(let item), .removed(let item): item
        }
    }
}

extension KeychainChange: Equatable where Item: Equatable {}
extension KeychainChange: Hashable where Item: Hashable {}
