import Foundation

/// The keybag in memory: which class keys are loaded, and the operations that load, discard and rewrap them.
///
/// Without a passcode every class is loaded from open. With one, opening starts locked: only `dk`, `dku` and the
/// index key (wrapped by the device key alone) are loaded until ``unlock(passcode:in:now:)``. ``lock()`` discards
/// `ak`, `aku`, `akpu` and class B's private key; `ck` and `cku` stay loaded after the first unlock. Not
/// thread-safe: the engine serialises access.
final class Keybag {
    private let deviceKey: SecretKey
    private let newPasscodeCost: PasscodeCost
    private let attempts: AttemptsSeal
    private(set) var record: KeybagRecord
    private var indexKey: SecretKey
    private var loaded: [KeybagRecord.KeyName: SecretKey]
    private var classB: KeyAgreementKeyPair?
    /// The blind index of the keybag's index key.
    private(set) var blindIndex: BlindIndex
    /// Whether the keybag has been unlocked since it was opened (always true without a passcode).
    private(set) var hasBeenUnlocked: Bool
    /// Removes the items of a protection class (all items when `nil`), recording each removal in the change log:
    /// passcode removal deletes `akpu` items, the erase after too many wrong passcodes deletes all.
    var removeItems: (ProtectionClass?, Date) throws(EngineError) -> Void = { _, _ throws(EngineError) in
        throw .internalError("the keybag cannot remove items before the engine is open")
    }

    private init(deviceKey: SecretKey, cost: PasscodeCost, record: KeybagRecord) throws(EngineError) {
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

    /// Opens the keybag stored in `database`, creating a fresh one (no passcode) only when the keychain is new: no
    /// keybag, no class keys and no items. A keychain that has items or class keys but no readable keybag is
    /// damaged: that is ``EngineError/Code/invalidKeychain`` and nothing is written, so the wrapped class keys that
    /// are left stay for a repair or a restore.
    static func open(database: Database, deviceKey: SecretKey, cost: PasscodeCost) throws(EngineError) -> Keybag {
        // A read first: only a new keychain needs the write lock.
        var record = try readStoredKeybag(database)
        if record == nil {
            record = try database.writeTransaction { () throws(EngineError) -> KeybagRecord in
                if let record = try readStoredKeybag(database) { return record }
                let record = try fresh(deviceKey: deviceKey)
                try record.save(to: database)
                return record
            }
        }
        guard let record else { throw EngineError(.invalidKeychain, "the keychain's keybag could not be created") }
        do throws(EngineError) {
            return try Keybag(deviceKey: deviceKey, cost: cost, record: record)
        } catch  where error.code == .decode {
            throw EngineError(
                .invalidKeychain,
                "the keybag does not open with the device key: the keybag or device.key is damaged, or device.key "
                    + "belongs to another keychain; nothing was changed")
        }
    }

    /// The stored keybag, `nil` only when the keychain is new; throws when the keybag is missing from a keychain
    /// that has class keys or items, or when SQLite cannot read its pages.
    private static func readStoredKeybag(_ database: Database) throws(EngineError) -> KeybagRecord? {
        do throws(EngineError) {
            return try database.readTransaction { () throws(EngineError) -> KeybagRecord? in
                if let record = try KeybagRecord.load(from: database) { return record }
                let used = try database.first(
                    "SELECT EXISTS (SELECT 1 FROM class_keys) OR EXISTS (SELECT 1 FROM items)"
                ) { $0.integer(0) != 0 }
                guard used != true else {
                    throw EngineError(
                        .invalidKeychain,
                        "the keychain has class keys or items but no readable keybag: keychain.db is damaged; "
                            + "nothing was changed (restore it from a backup)")
                }
                return nil
            }
        } catch  where error.code == .invalidKeychain && error.message.hasPrefix("SQLite") {
            throw EngineError(
                .invalidKeychain,
                "the keychain's keybag cannot be read, keychain.db is damaged; nothing was changed (restore it from a "
                    + "backup): \(error.message)")
        }
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

    // MARK: Lock and unlock

    /// The salt and cost to stretch a passcode with, or `nil` when no passcode is set. Re-reads the stored keybag
    /// and refuses while a wait after wrong passcodes runs, so a refused attempt costs no Argon2id.
    func passcodeParameters(in database: Database, now: Date) throws(EngineError) -> KeybagRecord.Passcode? {
        try reload(from: database, now: now)
        try checkRetryAllowed(now: now)
        return record.passcode
    }

    /// Loads every class key after checking the passcode, stretched by the caller with
    /// ``passcodeParameters(in:now:)``. Returns `false`, changing nothing, when the passcode was changed meanwhile.
    func unlock(with passcode: StretchedPasscode, in database: Database, now: Date) throws(EngineError) -> Bool {
        try reload(from: database, now: now)
        guard hasPasscode else { return true }
        guard passcode.matches(record.passcode) else { return false }
        try load(try verify(passcode, in: database, now: now))
        return true
    }

    /// Discards the keys of the classes that need the unlocked state. No effect without a passcode.
    func lock() {
        guard hasPasscode else { return }
        for name in [KeybagRecord.KeyName.ak, .aku, .akpu, .classB] {
            loaded[name] = nil
        }
        classB = nil
    }

    // MARK: Passcode

    /// Sets or changes the passcode (both stretched by the caller: the current one with
    /// ``passcodeParameters(in:now:)``, the new one with a fresh salt). Changing it rewraps the class keys only;
    /// items are untouched. Returns `false`, changing nothing, when the passcode was changed meanwhile.
    func setPasscode(
        _ newPasscode: StretchedPasscode, current: StretchedPasscode?, in database: Database, now: Date
    ) throws(EngineError) -> Bool {
        try reload(from: database, now: now)
        guard current?.matches(record.passcode) ?? (record.passcode == nil) else { return false }
        defer { Sodium.wipeStack() }
        var keys = try currentGuardedKeys(current: current, in: database, now: now)
        if keys[.akpu] == nil { keys[.akpu] = try SecretKey.random() }
        var record = self.record
        record.passcode = newPasscode.parameters
        try Self.rewrap(
            keys, into: &record, with: try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: newPasscode.key))
        record = try attempts.sealing(record, indexKey: indexKey)
        try database.writeTransaction { () throws(EngineError) in try record.save(to: database) }
        self.record = record
        try load(keys)
        return true
    }

    /// Removes the passcode: every class becomes available from open, and `akpu` items are deleted with their key.
    /// Returns `false`, changing nothing, when the passcode was changed meanwhile.
    func removePasscode(current: StretchedPasscode?, in database: Database, now: Date) throws(EngineError) -> Bool {
        try reload(from: database, now: now)
        guard hasPasscode else { throw EngineError(.param, "the keychain has no passcode to remove") }
        guard let current, current.matches(record.passcode) else { return false }
        defer { Sodium.wipeStack() }
        var keys = try currentGuardedKeys(current: current, in: database, now: now)
        keys[.akpu] = nil
        var record = self.record
        record.passcode = nil
        try Self.rewrap(keys, into: &record, with: try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: nil))
        record = try attempts.sealing(record, indexKey: indexKey)
        try database.writeTransaction { () throws(EngineError) in
            try removeItems(.whenPasscodeSetThisDeviceOnly, now)
            try KeybagRecord.deleteKey(.akpu, from: database)
            try record.save(to: database)
        }
        self.record = record
        loaded[.akpu] = nil
        try load(keys)
        return true
    }

    /// Sets how many consecutive wrong passcodes erase the keychain (`0`: never, the default).
    func setEraseAfter(_ failures: Int, in database: Database, now: Date) throws(EngineError) {
        guard failures >= 0 else { throw .param("erase-after count \(failures) is negative") }
        guard failures == 0 || failures > PasscodePolicy.freeAttempts else {
            throw .param("erase-after count \(failures) must exceed the \(PasscodePolicy.freeAttempts) free attempts")
        }
        try reload(from: database, now: now)
        let saved = try database.writeTransaction { () throws(EngineError) -> Bool in
            guard var stored = try storedRecord(in: database), try attempts.isAuthentic(stored) else { return false }
            stored.eraseAfter = failures
            stored = try attempts.sealing(stored, indexKey: indexKey)
            try stored.saveAttempts(to: database)
            record = stored
            return true
        }
        // Changed since the reload: the reload now finds what changed and says so.
        if !saved { try reload(from: database, now: now) }
    }

    // MARK: Private

    /// Re-reads the stored keybag: another process may have changed the passcode or counted failures. A counter
    /// whose seal is broken locks passcode entry out (``lockOutAfterTampering(in:now:)``).
    private func reload(from database: Database, now: Date) throws(EngineError) {
        guard let stored = try storedRecord(in: database) else {
            throw EngineError(.invalidKeychain, "the keychain's keybag is missing")
        }
        record = stored
        if try !attempts.isAuthentic(record) { try lockOutAfterTampering(in: database, now: now) }
    }

    /// The stored keybag, with ``KeybagRecord/sealsAttempts`` read from its index key. When another process erased
    /// the keychain, this keybag starts again from the new one first, so ``indexKey`` is always the stored one's.
    private func storedRecord(in database: Database) throws(EngineError) -> KeybagRecord? {
        guard var stored = try KeybagRecord.load(from: database) else { return nil }
        if stored.uuid != record.uuid { try adopt(stored) }
        _ = try Self.openIndexKey(of: &stored, deviceKey: deviceKey)
        return stored
    }

    /// The counter, wait or erase threshold was changed outside the engine, so the true count and wait are unknown:
    /// passcode entry is suspended for the longest wait from now (the record is sealed again with that wait, so
    /// every process and restart keeps it), and this attempt is ``EngineError/Code/decode``.
    private func lockOutAfterTampering(in database: Database, now: Date) throws(EngineError) {
        let locked = try database.writeTransaction { () throws(EngineError) -> KeybagRecord? in
            guard let stored = try storedRecord(in: database) else { return nil }
            // Another process may have found it first and locked passcode entry out already.
            if try attempts.isAuthentic(stored) {
                record = stored
                return nil
            }
            let locked = try attempts.sealing(AttemptsSeal.lockedOut(stored, now: now), indexKey: indexKey)
            try locked.saveAttempts(to: database)
            record = locked
            return locked
        }
        if let locked { throw Self.tampered(locked, now: now) }
    }

    private static func tampered(_ locked: KeybagRecord, now: Date) -> EngineError {
        let seconds = Int(locked.retryAfter.timeIntervalSince(now).rounded(.up))
        return EngineError(
            .decode,
            "the keybag's failed-passcode counter, wait or erase threshold was changed outside the keychain (its seal "
                + "does not match): passcode entry is suspended for the longest wait, \(seconds) s")
    }

    /// The KEK-wrapped keys, opened with the current passcode (checked, with failures counted) or, without a
    /// passcode, with the device key alone.
    private func currentGuardedKeys(
        current: StretchedPasscode?, in database: Database, now: Date
    ) throws(EngineError) -> [KeybagRecord.KeyName: SecretKey] {
        guard hasPasscode else {
            return try Self.openGuardedKeys(
                of: record, with: try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: nil))
        }
        guard let current else { throw EngineError(.authFailed, "the current passcode is required") }
        return try verify(current, in: database, now: now)
    }

    /// Throws while a wait after wrong passcodes runs.
    private func checkRetryAllowed(now: Date) throws(EngineError) {
        guard now < record.retryAfter else { return }
        let seconds = Int(record.retryAfter.timeIntervalSince(now).rounded(.up))
        throw EngineError(
            .interactionNotAllowed,
            "passcode entry is suspended after \(record.failedAttempts) wrong passcodes: try again in \(seconds) s")
    }

    /// Checks a stretched passcode against the stored keybag, honouring and updating the failure counter.
    private func verify(
        _ passcode: StretchedPasscode, in database: Database, now: Date
    ) throws(EngineError) -> [KeybagRecord.KeyName: SecretKey] {
        try checkRetryAllowed(now: now)
        defer { Sodium.wipeStack() }  // the KEK lives only in guarded memory, never in a stack frame left behind
        let kek = try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: passcode.key)
        let keys: [KeybagRecord.KeyName: SecretKey]
        do throws(EngineError) {
            keys = try Self.openGuardedKeys(of: record, with: kek)
        } catch  where error.code == .decode {
            throw try recordFailure(in: database, now: now)
        }
        if record.failedAttempts > 0 {
            var cleared = record
            cleared.failedAttempts = 0
            cleared.retryAfter = .distantPast
            cleared = try attempts.sealing(cleared, indexKey: indexKey)
            try database.writeTransaction { () throws(EngineError) in try cleared.saveAttempts(to: database) }
            record = cleared
        }
        return keys
    }

    /// Counts a wrong passcode (in the database, so every process and every restart sees it) and returns the
    /// error to throw; erases the keychain when the erase threshold is reached.
    private func recordFailure(in database: Database, now: Date) throws(EngineError) -> EngineError {
        try database.writeTransaction { () throws(EngineError) -> EngineError in
            guard var stored = try storedRecord(in: database) else {
                return EngineError(.invalidKeychain, "the keychain's keybag is missing")
            }
            guard try attempts.isAuthentic(stored) else {
                let locked = try attempts.sealing(AttemptsSeal.lockedOut(stored, now: now), indexKey: indexKey)
                try locked.saveAttempts(to: database)
                record = locked
                return Self.tampered(locked, now: now)
            }
            stored.failedAttempts += 1
            if stored.eraseAfter > 0 && stored.failedAttempts >= stored.eraseAfter {
                let failures = stored.failedAttempts
                try removeItems(nil, now)
                try KeybagRecord.deleteAllKeys(from: database)
                let fresh = try Self.fresh(deviceKey: deviceKey)
                try fresh.save(to: database)
                try adopt(fresh)
                return EngineError(.authFailed, "wrong passcode: the keychain was erased after \(failures) failures")
            }
            // A wait starts only once the count reaches its threshold: a failure below it sets no time at all, so
            // an attempt that started before this one and ends after it is not refused as early.
            let wait = PasscodePolicy.wait(afterFailures: stored.failedAttempts)
            stored.retryAfter = wait > 0 ? now.addingTimeInterval(wait) : .distantPast
            stored = try attempts.sealing(stored, indexKey: indexKey)
            try stored.saveAttempts(to: database)
            record = stored
            let suffix = wait > 0 ? "; the next attempt is allowed in \(Int(wait)) s" : ""
            return EngineError(.authFailed, "wrong passcode (\(stored.failedAttempts) consecutive failures\(suffix))")
        }
    }

    /// Replaces the whole in-memory state with that of another stored keybag (after an erase).
    private func adopt(_ stored: KeybagRecord) throws(EngineError) {
        let other = try Keybag(deviceKey: deviceKey, cost: newPasscodeCost, record: stored)
        record = other.record
        indexKey = other.indexKey
        loaded = other.loaded
        classB = other.classB
        blindIndex = other.blindIndex
        hasBeenUnlocked = other.hasBeenUnlocked
    }

    private func load(_ keys: [KeybagRecord.KeyName: SecretKey]) throws(EngineError) {
        for (name, key) in keys { loaded[name] = key }
        if let privateKey = keys[.classB] { classB = try KeyAgreementKeyPair(privateKey: privateKey) }
        hasBeenUnlocked = true
    }
}
