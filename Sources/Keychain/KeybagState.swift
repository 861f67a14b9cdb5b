import Foundation
import KeychainCore

/// The lock state of a keychain (its keybag), shared by every ``Keychain`` value on the same directory.
///
/// One concept with the engine's `KeybagStatus`, which every backend reports: this is that value, wrapped so that
/// `import Keychain` alone names it and the `Keychain` API shows only the fields an app acts on. It encodes exactly
/// as the engine's status does (so its JSON also carries the keybag's identifier and erase threshold).
public struct KeybagState: Sendable, Hashable, Codable {
    /// The engine's status this state shows.
    var status: KeybagStatus

    /// Whether a passcode is set. Without one every item is available.
    public var hasPasscode: Bool {
        get { status.hasPasscode }
        set { status.hasPasscode = newValue }
    }
    /// Whether items that need the unlocked state (``Accessibility/whenUnlocked`` and its kin) are unavailable.
    public var isLocked: Bool {
        get { status.isLocked }
        set { status.isLocked = newValue }
    }
    /// Whether the keychain has been unlocked since it was opened (``Accessibility/afterFirstUnlock`` items are
    /// available from then on).
    public var hasBeenUnlocked: Bool {
        get { status.hasBeenUnlocked }
        set { status.hasBeenUnlocked = newValue }
    }
    /// Consecutive wrong passcodes.
    public var failedAttempts: Int {
        get { status.failedAttempts }
        set { status.failedAttempts = newValue }
    }
    /// When the next passcode attempt is allowed, while a wait after wrong passcodes runs.
    public var retryAfter: Date? {
        get { status.retryAfter }
        set { status.retryAfter = newValue }
    }

    init(_ status: KeybagStatus) {
        self.status = status
    }

    /// Decodes the engine's status.
    public init(from decoder: any Decoder) throws {
        status = try KeybagStatus(from: decoder)
    }

    /// Encodes the engine's status.
    public func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
    }

    /// Hashes the status's fields (the engine's status is `Equatable` only).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status.keybagID)
        hasher.combine(status.hasPasscode)
        hasher.combine(status.isLocked)
        hasher.combine(status.hasBeenUnlocked)
        hasher.combine(status.failedAttempts)
        hasher.combine(status.retryAfter)
        hasher.combine(status.eraseAfter)
    }
}
