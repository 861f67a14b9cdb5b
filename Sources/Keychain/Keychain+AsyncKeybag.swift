/// `async` variants of keybag control. Setting, changing or checking a passcode stretches it with Argon2id (about
/// 0.35 s at ``PasscodeHashing/standard``): these do that work off the caller's executor.
extension Keychain {
    /// The keychain's lock state; see `keybagState()`.
    public func keybagState() async throws(KeychainError) -> KeybagState {
        try await offload { keychain throws(KeychainError) in try keychain.keybagState() }
    }

    /// Sets a passcode on a keychain that has none; see `setPasscode(_:)`.
    public func setPasscode(_ passcode: String) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.setPasscode(passcode) }
    }

    /// Changes the passcode; see `changePasscode(from:to:)`.
    public func changePasscode(from current: String, to new: String) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.changePasscode(from: current, to: new) }
    }

    /// Removes the passcode; see `removePasscode(_:)`.
    public func removePasscode(_ current: String) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.removePasscode(current) }
    }

    /// Unlocks the keychain; see `unlock(passcode:)`.
    public func unlock(passcode: String) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.unlock(passcode: passcode) }
    }

    /// Sets a passcode held in guarded memory; see `setPasscode(_:)`.
    public func setPasscode(_ passcode: Passcode) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.setPasscode(passcode) }
    }

    /// Changes the passcode, both held in guarded memory; see `changePasscode(from:to:)`.
    public func changePasscode(from current: Passcode, to new: Passcode) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.changePasscode(from: current, to: new) }
    }

    /// Removes the passcode, given in guarded memory; see `removePasscode(_:)`.
    public func removePasscode(_ current: Passcode) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.removePasscode(current) }
    }

    /// Unlocks the keychain with a passcode in guarded memory; see `unlock(passcode:)`.
    public func unlock(passcode: Passcode) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.unlock(passcode: passcode) }
    }

    /// Locks the keychain; see `lock()`.
    public func lock() async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.lock() }
    }

    /// Checks every item and the keychain's own records; see `verify()`.
    public func verify() async throws(KeychainError) -> KeychainVerification {
        try await offload { keychain throws(KeychainError) in try keychain.verify() }
    }
}
