import Foundation

/// The lock state: unlocking with the passcode (the failures counted on disk, the waits after them, a counter
/// changed outside the keychain) and locking.
extension Keybag {
    /// The salt and cost to stretch a passcode with, or `nil` when no passcode is set. Re-reads the stored keybag
    /// and refuses while a wait after wrong passcodes runs, so a refused attempt costs no Argon2id.
    func passcodeParameters(in database: Database, now: Date) throws(EngineError) -> KeybagRecord.Passcode? {
        try reload(from: database, now: now)
        try checkRetryAllowed(now: now)
        var parameters = record.passcode
        parameters?.tpm = attempts.counter?.context
        return parameters
    }

    /// Loads every class key after checking the passcode, stretched by the caller with
    /// ``passcodeParameters(in:now:)``. Returns `false`, changing nothing, when the passcode was changed meanwhile.
    func unlock(with passcode: StretchedPasscode, in database: Database, now: Date) throws(EngineError) -> Bool {
        try reload(from: database, now: now)
        guard hasPasscode else { return true }
        guard passcode.matches(record.passcode) else { return false }
        try load(try verify(passcode, in: database, now: now))
        if let factor = record.passcodeFactor {
            // The typed passcode opens the factor too: a public key put in place of its own is found here.
            isPasscodeFactorAltered =
                (try? factor.open(keybag: record.uuid, deviceKey: deviceKey, passcodeKey: passcode.key)) == nil
        } else {
            // A passcode set before access control existed: its factor is made at the first unlock since.
            var upgraded = record
            upgraded.passcodeFactor = try PasscodeFactor.generate(
                keybag: record.uuid, deviceKey: deviceKey, passcodeKey: passcode.key)
            try database.writeTransaction { () throws(EngineError) in try upgraded.save(to: database) }
            record = upgraded
        }
        return true
    }

    /// Checks a passcode, stretched by the caller with ``passcodeParameters(in:now:)``, as ``unlock(with:in:now:)``
    /// does (failures counted, waits honoured) without loading anything. Returns `false`, checking nothing, when the
    /// passcode was changed meanwhile.
    func check(_ passcode: StretchedPasscode, in database: Database, now: Date) throws(EngineError) -> Bool {
        try reload(from: database, now: now)
        guard hasPasscode else { throw EngineError(.authFailed, "the keychain has no passcode to check") }
        guard passcode.matches(record.passcode) else { return false }
        _ = try verify(passcode, in: database, now: now)
        return true
    }

    /// Discards the keys of the classes that need the unlocked state. No effect without a passcode.
    func lock() {
        guard hasPasscode else { return }
        lockEpoch = UInt64.random(in: 1...UInt64.max)
        unload([.ak, .aku, .akpu, .classB])
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
    func verify(
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
                return try erase(after: stored.failedAttempts, in: database, now: now)
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

    /// The counter, wait or erase threshold was changed outside the engine, so the true count and wait are unknown:
    /// passcode entry is suspended for the longest wait from now (the record is sealed again with that wait, so
    /// every process and restart keeps it), and this attempt is ``EngineError/Code/decode``.
    func lockOutAfterTampering(in database: Database, now: Date) throws(EngineError) {
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
}
