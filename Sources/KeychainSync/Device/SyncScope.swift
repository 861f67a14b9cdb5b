import KeychainCore

/// Which items sync (Apple's scope): synchronizable generic and internet passwords whose accessibility is not
/// this-device-only and that have no access control (`accc`: its factors never leave this device; the engine also
/// refuses a synchronizable item with one).
enum SyncScope {
    /// The classes that sync.
    static let classes: [ItemClass] = [.genericPassword, .internetPassword]

    /// Whether a stored item syncs.
    static func includes(_ item: Item) -> Bool {
        guard classes.contains(item.itemClass), item.attributes.bool(.synchronizable) == true,
            item.attributes[.accessControl] == nil  // Apple's scope: an item with access control never leaves
        else { return false }
        let accessible = item.attributes.string(.accessible).flatMap(ProtectionClass.init(rawValue:)) ?? .default
        return !accessible.isThisDeviceOnly
    }

    /// Whether a change may concern an item that syncs (a cheap filter before reading the item).
    static func mayInclude(_ change: ItemChange) -> Bool {
        classes.contains(change.itemClass) && change.isSynchronizable && !change.protectionClass.isThisDeviceOnly
    }
}
