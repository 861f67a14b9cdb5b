import Foundation

/// The erase after too many wrong passcodes (off by default): its threshold, sealed with the failure counter, and
/// the erase itself.
extension Keybag {
    /// Refuses an erase threshold the keybag cannot keep: negative, or within the free attempts (which would erase
    /// before any wait).
    static func checkEraseAfter(_ failures: Int) throws(EngineError) {
        guard failures >= 0 else { throw .param("erase-after count \(failures) is negative") }
        guard failures == 0 || failures > PasscodePolicy.freeAttempts else {
            throw .param("erase-after count \(failures) must exceed the \(PasscodePolicy.freeAttempts) free attempts")
        }
    }

    /// Sets how many consecutive wrong passcodes erase the keychain (`0`: never, the default), vouched for by the
    /// current passcode (stretched by the caller with ``passcodeParameters(in:now:)``; `nil` only when none is
    /// set), which is checked as an unlock checks it: a wrong one counts towards the waits and the erase. Returns
    /// `false`, changing nothing, when the passcode was changed meanwhile.
    func setEraseAfter(
        _ failures: Int, current: StretchedPasscode?, in database: Database, now: Date
    ) throws(EngineError) -> Bool {
        try Self.checkEraseAfter(failures)
        try reload(from: database, now: now)
        if hasPasscode {
            guard let current else { throw Self.passcodeMissing }
            guard current.matches(record.passcode) else { return false }
            defer { Sodium.wipeStack() }
            _ = try verify(current, in: database, now: now)
        } else if current != nil {
            return false  // the passcode was removed meanwhile
        }
        try saveEraseAfter(failures, in: database, now: now)
        return true
    }

    /// Sets the erase threshold with no passcode: for keychaind acting for root, who owns every keychain it keeps.
    func setEraseAfterAsAdministrator(_ failures: Int, in database: Database, now: Date) throws(EngineError) {
        try Self.checkEraseAfter(failures)
        try reload(from: database, now: now)
        try saveEraseAfter(failures, in: database, now: now)
    }

    /// Why a threshold change without the passcode is refused.
    static let passcodeMissing = EngineError(
        .authFailed,
        "setting the erase-after threshold needs the keychain's current passcode, and none was given: a program "
            + "that could arm the erase without it could erase the keychain with wrong passcodes")

    private func saveEraseAfter(_ failures: Int, in database: Database, now: Date) throws(EngineError) {
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
