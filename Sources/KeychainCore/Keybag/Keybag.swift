import Foundation

/// The keybag in memory: which class keys are loaded, and the operations that load, discard and rewrap them.
///
/// Without a passcode every class is loaded from open. With one, opening starts locked: only `dk`, `dku` and the
/// index key (wrapped by the device key alone) are loaded until ``unlock(passcode:in:now:)``. ``lock()`` discards
/// `ak`, `aku`, `akpu` and class B's private key; `ck` and `cku` stay loaded after the first unlock. Not
/// thread-safe: the engine serialises access.
///
/// One concept per file: this one holds the keys in memory and says which are available; opening and re-reading
/// the stored keybag (`Keybag+Open.swift`), unlocking and counting wrong passcodes (`Keybag+Unlock.swift`),
/// setting, changing and removing the passcode (`Keybag+Passcode.swift`), the erase after too many wrong
/// passcodes (`Keybag+Erase.swift`) and how keys are wrapped (`Keybag+Wrapping.swift`, stored by
/// ``KeybagRecord``) are extensions. The keybag owns keys only: the items it removes go through ``removeItems``,
/// which the engine points at the item store.
final class Keybag {
    /// The device key, which wraps the device-key classes and the index key and enters every KEK.
    let deviceKey: SecretKey
    private let newPasscodeCost: PasscodeCost
    /// The seal over the failed-passcode counter, its wait and the erase threshold.
    let attempts: AttemptsSeal
    /// The stored keybag as last read or written.
    var record: KeybagRecord
    /// The index key (blind indexes); it also seals the attempts.
    private(set) var indexKey: SecretKey
    private var loaded: [KeybagRecord.KeyName: SecretKey]
    private var classB: KeyAgreementKeyPair?
    /// The blind index of the keybag's index key.
    private(set) var blindIndex: BlindIndex
    /// Whether the keybag has been unlocked since it was opened (always true without a passcode).
    private(set) var hasBeenUnlocked: Bool
    /// Changes at every lock (and differs between openings): a passcode a caller kept from an earlier epoch no
    /// longer opens items with access control, since a lock ends every reuse.
    var lockEpoch = UInt64.random(in: 1...UInt64.max)
    /// Set by an unlock whose passcode did not open the passcode factor: its public key was replaced, so no item
    /// may be sealed to it.
    var isPasscodeFactorAltered = false
    /// Removes the items of a protection class (all items when `nil`), recording each removal in the change log:
    /// passcode removal deletes `akpu` items, the erase after too many wrong passcodes deletes all.
    var removeItems: (ProtectionClass?, Date) throws(EngineError) -> Void = { _, _ throws(EngineError) in
        throw .internalError("the keybag cannot remove items before the engine is open")
    }
    /// Removes the items whose access control only the passcode satisfies (passcode removal deletes them with the
    /// passcode factor), recording each removal in the change log.
    var removePasscodeOnlyItems: (Date) throws(EngineError) -> Void = { _ throws(EngineError) in
        throw .internalError("the keybag cannot remove items before the engine is open")
    }

    init(deviceKey: SecretKey, cost: PasscodeCost, record: KeybagRecord) throws(EngineError) {
        self.deviceKey = deviceKey
        self.newPasscodeCost = cost
        self.attempts = try AttemptsSeal(deviceKey: deviceKey)
        var record = record
        let indexKey = try Self.openIndexKey(of: &record, deviceKey: deviceKey)
        self.record = record
        self.indexKey = indexKey
        self.loaded = [.index: indexKey]
        self.blindIndex = BlindIndex(key: indexKey)
        // Without a passcode every class is available from open; class keys are unwrapped when first used, so a
        // short-lived process (one `security` command) opens only the keys it needs.
        self.hasBeenUnlocked = record.passcode == nil
    }

    // MARK: State

    /// Whether a passcode is set.
    var hasPasscode: Bool { record.passcode != nil }

    /// Whether the classes that need the unlocked state are available.
    var isUnlocked: Bool { !hasPasscode || loaded[.ak] != nil }

    /// The keybag's identifier.
    var uuid: Data { record.uuid }

    /// The public key of protection class B (files that can be created while locked).
    var classBPublicKey: Data? { record.classBPublicKey }

    /// Class B's key pair, while unlocked.
    func classBKeyPair() throws(EngineError) -> KeyAgreementKeyPair {
        if let classB { return classB }
        guard let privateKey = try availableKey(.classB) else {
            throw EngineError(.interactionNotAllowed, "protection class B's private key is unavailable while locked")
        }
        let pair = try KeyAgreementKeyPair(privateKey: privateKey)
        classB = pair
        return pair
    }

    /// The key of a protection class, or the error that says why it is unavailable.
    func key(for protectionClass: ProtectionClass) throws(EngineError) -> SecretKey {
        if protectionClass == .whenPasscodeSetThisDeviceOnly && !hasPasscode {
            throw EngineError(
                .authFailed,
                "accessibility akpu (WhenPasscodeSetThisDeviceOnly) needs a passcode, and the keychain has none")
        }
        guard let key = try availableKey(KeybagRecord.KeyName(protectionClass)) else {
            throw EngineError(
                .interactionNotAllowed,
                "items with accessibility \(protectionClass.rawValue) are unavailable while the keychain is locked")
        }
        return key
    }

    /// A key that is loaded, or can be loaded without a passcode (the device-key classes always, the others when
    /// no passcode is set); `nil` when the lock withholds it. A key the lock does not withhold but the keybag lacks
    /// or cannot open is damage, ``EngineError/Code/decode``: never reported as "locked".
    private func availableKey(_ name: KeybagRecord.KeyName) throws(EngineError) -> SecretKey? {
        if let key = loaded[name] { return key }
        if isWithheld(name) { return nil }
        defer { Sodium.wipeStack() }  // once per key: the wrapping key lives only in guarded memory
        guard record.wrappedKeys[name] != nil else {
            throw EngineError(
                .decode, "the keybag has no \(name.rawValue) key although the keychain is not locked: it is damaged")
        }
        let wrappingKey: SecretKey
        if name.isWrappedByDeviceKey {
            wrappingKey = deviceKey
        } else if !hasPasscode {
            wrappingKey = try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: nil)
        } else {
            // Unlocked by the device key alone before another process set a passcode: the passcode is needed now.
            return nil
        }
        do throws(EngineError) {
            let key = try Self.unwrap(name, from: record, with: wrappingKey)
            loaded[name] = key
            return key
        } catch {
            throw EngineError(.decode, "the keybag's \(name.rawValue) key is damaged: \(error.message)")
        }
    }

    /// Whether the lock state withholds a key: with a passcode, the KEK-wrapped keys before the first unlock, and
    /// `ak`, `aku`, `akpu` and class B's private key whenever locked.
    private func isWithheld(_ name: KeybagRecord.KeyName) -> Bool {
        guard hasPasscode, !name.isWrappedByDeviceKey else { return false }
        switch name {
        case .ck, .cku: return !hasBeenUnlocked
        default: return !isUnlocked
        }
    }

    // MARK: Loading

    /// Replaces the whole in-memory state with that of another stored keybag (after an erase).
    func adopt(_ stored: KeybagRecord) throws(EngineError) {
        let other = try Keybag(deviceKey: deviceKey, cost: newPasscodeCost, record: stored)
        KeyOperations.forgetPreparedKeys()
        record = other.record
        indexKey = other.indexKey
        loaded = other.loaded
        classB = other.classB
        blindIndex = other.blindIndex
        hasBeenUnlocked = other.hasBeenUnlocked
    }

    /// Loads unwrapped keys (after a passcode was checked or set); the keybag counts as unlocked from then on.
    func load(_ keys: [KeybagRecord.KeyName: SecretKey]) throws(EngineError) {
        for (name, key) in keys { loaded[name] = key }
        if let privateKey = keys[.classB] { classB = try KeyAgreementKeyPair(privateKey: privateKey) }
        hasBeenUnlocked = true
    }

    /// Discards loaded keys (class B's key pair with its private key).
    func unload(_ names: [KeybagRecord.KeyName]) {
        for name in names { loaded[name] = nil }
        // A private key the key layer keeps parsed is as secret as the class key that opened it.
        KeyOperations.forgetPreparedKeys()
        if names.contains(.classB) { classB = nil }
    }
}
