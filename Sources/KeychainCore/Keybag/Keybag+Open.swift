import Foundation

/// Opening the stored keybag (creating it for a new keychain) and re-reading it, since another process may have
/// changed it meanwhile.
extension Keybag {
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
        let keybag: Keybag
        do throws(EngineError) {
            keybag = try Keybag(deviceKey: deviceKey, cost: cost, record: record)
        } catch  where error.code == .decode {
            throw EngineError(
                .invalidKeychain,
                "the keybag does not open with the device key: the keybag or device.key is damaged, or device.key "
                    + "belongs to another keychain; nothing was changed")
        }
        try keybag.bindAttemptsToCounter(in: database)
        return keybag
    }

    /// Seals the attempts again with the TPM counter, when the keychain's counter was just defined (a keychain
    /// sealed by a TPM before counters were bound): from now on an earlier sealed state no longer matches.
    private func bindAttemptsToCounter(in database: Database) throws(EngineError) {
        guard attempts.counter?.isNew == true else { return }
        try database.writeTransaction { () throws(EngineError) in
            guard let stored = try storedRecord(in: database), try attempts.isSealedBeforeCounter(stored) else {
                return
            }
            let sealed = try attempts.sealing(stored, indexKey: indexKey)
            try sealed.saveAttempts(to: database)
            record = sealed
        }
    }

    /// The stored keybag, `nil` only when the keychain is new; throws when the keybag is missing from a keychain
    /// that has class keys or items, or when SQLite cannot read its pages.
    private static func readStoredKeybag(_ database: Database) throws(EngineError) -> KeybagRecord? {
        do throws(EngineError) {
            return try database.readTransaction { () throws(EngineError) -> KeybagRecord? in
                if let record = try KeybagRecord.load(from: database) { return record }
                guard try !KeybagRecord.hasKeys(in: database), try !ItemStore.hasRows(in: database) else {
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

    /// Re-reads the stored keybag: another process may have changed the passcode or counted failures. A counter
    /// whose seal is broken locks passcode entry out (``lockOutAfterTampering(in:now:)``).
    func reload(from database: Database, now: Date) throws(EngineError) {
        guard let stored = try storedRecord(in: database) else {
            throw EngineError(.invalidKeychain, "the keychain's keybag is missing")
        }
        record = stored
        if try !attempts.isAuthentic(record) { try lockOutAfterTampering(in: database, now: now) }
    }

    /// The stored keybag, with ``KeybagRecord/sealsAttempts`` read from its index key. When another process erased
    /// the keychain, this keybag starts again from the new one first, so ``indexKey`` is always the stored one's.
    func storedRecord(in database: Database) throws(EngineError) -> KeybagRecord? {
        guard var stored = try KeybagRecord.load(from: database) else { return nil }
        if stored.uuid != record.uuid { try adopt(stored) }
        _ = try Self.openIndexKey(of: &stored, deviceKey: deviceKey)
        return stored
    }
}
