import KeychainCore

/// Which items sync (Apple's scope): synchronizable generic and internet passwords whose accessibility is not
/// this-device-only and that have no access control (`accc`: its factors never leave this device; the engine also
/// refuses a synchronizable item with one).
///
/// Checked twice: on the way out (a local item outside the scope is never sent) and on the way in (a version some
/// member sealed is written to this keychain only when it is inside the scope too: a member's broken or hostile
/// build must not plant a this-device-only item, one with access control, or a key or certificate).
enum SyncScope {
    /// The classes that sync.
    static let classes: [ItemClass] = [.genericPassword, .internetPassword]

    /// Whether a stored item syncs.
    static func includes(_ item: Item) -> Bool {
        reasonExcluded(item.itemClass, item.attributes) == nil
    }

    /// Why an item of `itemClass` with `attributes` does not sync, or `nil` when it does.
    static func reasonExcluded(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> String? {
        guard classes.contains(itemClass) else { return "its class \(itemClass.rawValue) does not sync" }
        guard attributes.bool(.synchronizable) == true else { return "it is not synchronizable" }
        // Apple's scope: an item with access control never leaves this device.
        guard attributes[.accessControl] == nil else { return "it has access control" }
        guard let raw = attributes.string(.accessible) else { return nil }
        guard let accessible = ProtectionClass(rawValue: raw) else { return "its accessibility \(raw) is unknown" }
        return accessible.isThisDeviceOnly ? "its accessibility \(raw) is this device only" : nil
    }

    /// Whether a change may concern an item that syncs (a cheap filter before reading the item).
    static func mayInclude(_ change: ItemChange) -> Bool {
        classes.contains(change.itemClass) && change.isSynchronizable && !change.protectionClass.isThisDeviceOnly
    }
}
