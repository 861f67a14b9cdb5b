import Foundation

/// Setting, changing and removing the passcode: the class keys are rewrapped, items untouched (but removing the
/// passcode deletes the `akpu` items with their key).
extension Keybag {
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
        // A keychain whose device key the TPM seals entangles its passcode with the TPM too (``PasscodeTPM``).
        var newPasscode = newPasscode
        if let tpm = attempts.counter?.context { newPasscode = try newPasscode.entangled(with: tpm) }
        if keys[.akpu] == nil { keys[.akpu] = try SecretKey.random() }
        var record = self.record
        record.passcodeFactor = try passcodeFactor(
            for: newPasscode, current: current, replacing: isPasscodeFactorAltered)
        record.passcode = newPasscode.parameters
        try Self.rewrap(
            keys, into: &record, with: try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: newPasscode.key))
        record = try attempts.sealing(record, indexKey: indexKey)
        try database.writeTransaction { () throws(EngineError) in try record.save(to: database) }
        self.record = record
        isPasscodeFactorAltered = false
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
        record.passcodeFactor = nil
        try Self.rewrap(keys, into: &record, with: try Self.keyEncryptionKey(deviceKey: deviceKey, passcodeKey: nil))
        record = try attempts.sealing(record, indexKey: indexKey)
        try database.writeTransaction { () throws(EngineError) in
            try removeItems(.whenPasscodeSetThisDeviceOnly, now)
            try removePasscodeOnlyItems(now)
            try KeybagRecord.deleteKey(.akpu, from: database)
            try record.save(to: database)
        }
        self.record = record
        isPasscodeFactorAltered = false
        unload([.akpu])
        try load(keys)
        return true
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
}
