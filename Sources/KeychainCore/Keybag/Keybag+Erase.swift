import Foundation

/// The erase after too many wrong passcodes (off by default): its threshold, sealed with the failure counter, and
/// the erase itself.
extension Keybag {
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

    /// Erases the keychain after `failures` consecutive wrong passcodes, inside the caller's write transaction: every
    /// item (through ``removeItems``, which records each removal), every key, and a fresh keybag in their place.
    /// Returns the error the failed attempt throws.
    func erase(after failures: Int, in database: Database, now: Date) throws(EngineError) -> EngineError {
        try removeItems(nil, now)
        try KeybagRecord.deleteAllKeys(from: database)
        let fresh = try Self.fresh(deviceKey: deviceKey)
        try fresh.save(to: database)
        try adopt(fresh)
        return EngineError(.authFailed, "wrong passcode: the keychain was erased after \(failures) failures")
    }
}
