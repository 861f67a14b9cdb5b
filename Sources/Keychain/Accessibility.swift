import KeychainCore

/// When an item can be read: Apple's keychain protection classes, with the same names.
///
/// The class decides which key wraps the item's key, so it is enforced by cryptography: an item whose class is
/// unavailable cannot be read or written, and the operation throws ``KeychainError/interactionNotAllowed``.
/// The raw value is Apple's `kSecAttrAccessible` value (`pdmn`).
public enum Accessibility: String, Sendable, Hashable, Codable, CaseIterable {
    /// Readable while the keychain is unlocked (`kSecAttrAccessibleWhenUnlocked`). The default.
    case whenUnlocked = "ak"
    /// Readable from the first unlock on, also while locked again (`kSecAttrAccessibleAfterFirstUnlock`): for
    /// background work.
    case afterFirstUnlock = "ck"
    /// Always readable, even before the first unlock (`kSecAttrAccessibleAlways`). Deprecated by Apple: prefer
    /// ``afterFirstUnlock``.
    case always = "dk"
    /// ``whenUnlocked``, and never synchronized to another device.
    case whenUnlockedThisDeviceOnly = "aku"
    /// ``afterFirstUnlock``, and never synchronized to another device.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// ``always``, and never synchronized to another device. Deprecated by Apple.
    case alwaysThisDeviceOnly = "dku"
    /// Readable while unlocked and only while a passcode is set: adding one without a passcode throws
    /// ``KeychainError/authFailed``, and removing the passcode deletes these items.
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// Whether items of this class never leave this device (so they cannot be synchronizable).
    public var isThisDeviceOnly: Bool { protectionClass.isThisDeviceOnly }

    /// The engine's protection class.
    var protectionClass: ProtectionClass {
        ProtectionClass(rawValue: rawValue) ?? .default
    }

    /// The accessibility of an engine protection class.
    init(_ protectionClass: ProtectionClass) {
        self = Accessibility(rawValue: protectionClass.rawValue) ?? .whenUnlocked
    }
}
