import KeychainCore

/// Which items sync (Apple's scope): synchronizable generic and internet passwords whose accessibility is not
/// this-device-only. Items with access control stay local too; the engine has no access-control attribute yet, so
/// there is nothing more to check here until it does.
enum SyncScope {
    /// The classes that sync.
    static let classes: [ItemClass] = [.genericPassword, .internetPassword]

    /// Whether a stored item syncs.
    static func includes(_ item: Item) -> Bool {
        guard classes.contains(item.itemClass), item.attributes.bool(.synchronizable) == true else { return false }
        let accessible = item.attributes.string(.accessible).flatMap(ProtectionClass.init(rawValue:)) ?? .default
        return !accessible.isThisDeviceOnly
    }

    /// Whether a change may concern an item that syncs (a cheap filter before reading the item).
    static func mayInclude(_ change: ItemChange) -> Bool {
        classes.contains(change.itemClass) && change.isSynchronizable && !change.protectionClass.isThisDeviceOnly
    }
}
