import KeychainCore

/// Keybag control, for apps that own their keychain: the passcode and the lock state. They act on the keychain,
/// not on one configuration: every ``Keychain`` value on the same directory shares the state.
///
/// With no passcode every item is available. With one, an opened keychain starts locked: items of
/// ``Accessibility/whenUnlocked`` (and its kin) throw ``KeychainError/interactionNotAllowed`` until `unlock(passcode:)`;
/// ``Accessibility/afterFirstUnlock`` items stay available after the first unlock, ``Accessibility/always`` items
/// always. Stretching a passcode takes about 0.35 s (``PasscodeHashing/standard``): prefer the `async` variants.
///
/// Each passcode call takes the passcode as a ``Passcode`` (bytes in guarded memory, wiped when released: what a
/// program that reads a passcode itself should hold it in) or as a `String` (copied into one; the `String` itself
/// stays wherever the caller keeps it).
extension Keychain {
    /// A passcode in guarded memory (`KeychainCore`'s `Passcode`): `try Keychain.Passcode(copying: bytes)`.
    public typealias Passcode = KeychainCore.Passcode

    /// The keychain's lock state.
    public func keybagState() throws(KeychainError) -> KeybagState {
        try performOnKeybag("cannot read the lock state") { (connection) throws(EngineError) -> KeybagState in
            KeybagState(try connection.backend().keybagStatus())
        }
    }

    /// Sets a passcode on a keychain that has none; the keychain is unlocked afterwards. Throws
    /// ``KeychainError/param`` when the passcode is empty or one is already set (use
    /// `changePasscode(from:to:)`).
    public func setPasscode(_ passcode: String) throws(KeychainError) {
        try setPasscode(try Self.passcode(passcode))
    }

    /// Sets a passcode on a keychain that has none, as `setPasscode(_:)` with a `String` does, from guarded memory.
    public func setPasscode(_ passcode: Passcode) throws(KeychainError) {
        try performOnKeybag("cannot set the passcode") { (connection) throws(EngineError) in
            let backend = try connection.backend()
            guard try !backend.keybagStatus().hasPasscode else {
                throw EngineError(
                    .param, "the keychain already has a passcode: change it with changePasscode(from:to:)")
            }
            try backend.setPasscode(passcode, current: nil)
        }
    }

    /// Changes the passcode. Only the class keys are rewrapped; items are untouched. Throws
    /// ``KeychainError/authFailed`` when `current` is wrong (it counts towards the waits after wrong passcodes).
    public func changePasscode(from current: String, to new: String) throws(KeychainError) {
        try changePasscode(from: try Self.passcode(current), to: try Self.passcode(new))
    }

    /// Changes the passcode, as `changePasscode(from:to:)` with `String`s does, from guarded memory.
    public func changePasscode(from current: Passcode, to new: Passcode) throws(KeychainError) {
        try performOnKeybag("cannot change the passcode") { (connection) throws(EngineError) in
            try connection.backend().setPasscode(new, current: current)
        }
    }

    /// Removes the passcode: every item becomes available, and ``Accessibility/whenPasscodeSetThisDeviceOnly``
    /// items are deleted (the change stream reports them as removed). Throws ``KeychainError/authFailed`` when
    /// `current` is wrong.
    public func removePasscode(_ current: String) throws(KeychainError) {
        try removePasscode(try Self.passcode(current))
    }

    /// Removes the passcode, as `removePasscode(_:)` with a `String` does, from guarded memory.
    public func removePasscode(_ current: Passcode) throws(KeychainError) {
        try performOnKeybag("cannot remove the passcode") { (connection) throws(EngineError) in
            try connection.removePasscode(current: current)
        }
    }

    /// Unlocks the keychain. Throws ``KeychainError/authFailed`` for a wrong passcode and, after five in a row,
    /// ``KeychainError/interactionNotAllowed`` until the wait (1, 5, 15, then 60 minutes) is over. No effect
    /// without a passcode.
    public func unlock(passcode: String) throws(KeychainError) {
        try unlock(passcode: try Self.passcode(passcode))
    }

    /// Unlocks the keychain, as `unlock(passcode:)` with a `String` does, from guarded memory.
    public func unlock(passcode: Passcode) throws(KeychainError) {
        try performOnKeybag("cannot unlock the keychain") { (connection) throws(EngineError) in
            try connection.unlock(passcode: passcode)
        }
    }

    /// Locks the keychain: the keys of the classes that need the unlocked state are discarded. No effect without
    /// a passcode.
    public func lock() throws(KeychainError) {
        try performOnKeybag("cannot lock the keychain") { (connection) throws(EngineError) in
            try connection.backend().lock()
        }
    }

    /// A passcode's text copied into guarded memory.
    private static func passcode(_ text: String) throws(KeychainError) -> Passcode {
        do {
            return try Passcode(copying: text)
        } catch {
            throw KeychainError(error, doing: "cannot hold the passcode")
        }
    }
}
