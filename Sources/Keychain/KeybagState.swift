import Foundation
import KeychainCore

/// The lock state of a keychain (its keybag), shared by every ``Keychain`` value on the same directory.
public struct KeybagState: Sendable, Hashable, Codable {
    /// Whether a passcode is set. Without one every item is available.
    public var hasPasscode: Bool
    /// Whether items that need the unlocked state (``Accessibility/whenUnlocked`` and its kin) are unavailable.
    public var isLocked: Bool
    /// Whether the keychain has been unlocked since it was opened (``Accessibility/afterFirstUnlock`` items are
    /// available from then on).
    public var hasBeenUnlocked: Bool
    /// Consecutive wrong passcodes.
    public var failedAttempts: Int
    /// When the next passcode attempt is allowed, while a wait after wrong passcodes runs.
    public var retryAfter: Date?

    init(_ status: KeybagStatus) {
        hasPasscode = status.hasPasscode
        isLocked = status.isLocked
        hasBeenUnlocked = status.hasBeenUnlocked
        failedAttempts = status.failedAttempts
        retryAfter = status.retryAfter
    }
}
