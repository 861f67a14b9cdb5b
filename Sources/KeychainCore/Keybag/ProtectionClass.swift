/// When an item can be read: Apple's data protection classes for keychain items (`pdmn`).
public enum ProtectionClass: String, Sendable, Codable, CaseIterable {
    /// Readable while unlocked (`kSecAttrAccessibleWhenUnlocked`), the default.
    case whenUnlocked = "ak"
    /// Readable after the first unlock since the keychain was opened (`kSecAttrAccessibleAfterFirstUnlock`).
    case afterFirstUnlock = "ck"
    /// Always readable (`kSecAttrAccessibleAlways`, deprecated by Apple, still stored).
    case always = "dk"
    /// ``whenUnlocked``, never leaving this device.
    case whenUnlockedThisDeviceOnly = "aku"
    /// ``afterFirstUnlock``, never leaving this device.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// ``always``, never leaving this device.
    case alwaysThisDeviceOnly = "dku"
    /// Readable while unlocked, and only while a passcode is set; removing the passcode deletes these items.
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// The class used when an item names none.
    public static let `default` = ProtectionClass.whenUnlocked

    /// Whether items of this class may never leave the device (and so may not be synchronizable).
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock, .always: false
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
            .whenPasscodeSetThisDeviceOnly:
            true
        }
    }

    /// When the class key is loaded.
    public var availability: Availability {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: .whileUnlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .afterFirstUnlock
        case .always, .alwaysThisDeviceOnly: .always
        }
    }

    /// When a class key is available.
    public enum Availability: Sendable {
        /// While the keybag is unlocked.
        case whileUnlocked
        /// From the first unlock on, until the keychain is closed.
        case afterFirstUnlock
        /// Always: wrapped by the device key alone.
        case always
    }
}
