import Foundation
import Synchronization

/// The keychain engine: encrypted items in SQLite under a passcode-locked keybag, with Apple's item semantics.
///
/// One engine owns one database connection and one keybag. It is `Sendable`: every operation takes an internal
/// lock, so any number of tasks and threads may share it. Several processes may open the same keychain at once
/// (SQLite WAL with a busy timeout); each process keeps its own lock state, as each app did before `keychaind`.
public final class Engine: KeychainBackend {
    /// Where the keychain lives.
    let storage: KeychainStorage
    let options: EngineOptions
    let state: ParkingMutex<EngineState>
    /// Tells observers the change feed may have grown.
    let notifier: ChangeNotifier
    /// Called once, after the first unlock with a passcode (``whenFirstUnlocked(_:)``).
    private let firstUnlockHandler = Mutex<(@Sendable (Engine) -> Void)?>(nil)

    /// Opens the keychain at `storage`, creating it (without a passcode) when it does not exist.
    public init(storage: KeychainStorage, options: EngineOptions = EngineOptions()) throws(EngineError) {
        self.storage = storage
        self.options = options
        let deviceKey: SecretKey
        let database: Database
        var highWaterMarkPath: String?
        switch storage {
        case .directory(let url):
            let directory = KeychainDirectory(url: url)
            (deviceKey, database) = try Self.openFiles(of: directory, cost: options.passcodeCost)
            highWaterMarkPath = directory.highWaterMarkPath
            notifier = ChangeNotifier(directory: directory.url.path)
        case .inMemory:
            deviceKey = try SecretKey.random()
            database = try Database(path: nil)
            notifier = ChangeNotifier(directory: nil)
        case .daemon(let path):
            throw EngineError(.param, "the engine cannot open keychaind's keychain at \(path): use KeychainBackends")
        }
        let integrityKey = try ChangeLog.integrityKey(deviceKey: deviceKey)
        let highWaterMark = try highWaterMarkPath.map { (path) throws(EngineError) in
            try HighWaterMark(path: path, key: integrityKey)
        }
        try Self.migrate(database, integrityKey: integrityKey, highWaterMark: highWaterMark)
        let keybag = try Keybag.open(database: database, deviceKey: deviceKey, cost: options.passcodeCost)
        let changeLog = try ChangeLog(database: database, key: integrityKey, highWaterMark: highWaterMark)
        // Before any item is read or written: a rolled-back database or a damaged WAL is refused, never served.
        // The keybag still works (unlock, lock), and so does `verify()`, which reports the refusal.
        var refusal: EngineError?
        do throws(EngineError) {
            try changeLog.checkCurrent()
        } catch {
            refusal = error
        }
        keybag.removeItems = { (protectionClass, time) throws(EngineError) in
            try changeLog.removeAll(of: protectionClass, at: time)
        }
        keybag.removePasscodeOnlyItems = { (time) throws(EngineError) in
            try changeLog.removeAll(where: { AccessConstraint.opensOnlyWithPasscode(flags: $0) }, at: time)
        }
        changeLog.didCommit = { [notifier] _ in notifier.signal() }
        state = ParkingMutex(
            try EngineState(database: database, keybag: keybag, changeLog: changeLog, refusal: refusal))
        // An upgraded keychain without a passcode has every class key now. Best effort: a keychain that cannot be
        // written now (read-only, busy) keeps accepting the older binding and is sealed again another time.
        state.withLock { state in try? state.rebindOlderRows() }
        // Best effort as well: a keychain that cannot be written now keeps its old tombstones until next time.
        state.withLock { state in try? state.dropTombstoneRows() }
    }

    /// Brings the schema up to date, sealing what the change log's migration made. A database without a change log
    /// where changes were acknowledged (`highWaterMark`) lost them all: migrating would write over what is left of
    /// it, so that is refused and nothing is written.
    static func migrate(
        _ database: Database, integrityKey: SecretKey, highWaterMark: HighWaterMark?
    ) throws(EngineError) {
        try Schema.migrate(database) { (version) throws(EngineError) in
            // Only a database from before the change log (version 2) has none; a later migration (an index, say)
            // of a keychain that acknowledged changes is an upgrade, not a loss.
            if version < 2, let mark = try highWaterMark?.read(), mark > 0 {
                throw EngineError(
                    .decode,
                    "the keychain database has no change log, but \(mark) changes were acknowledged: its WAL was "
                        + "damaged or the database was replaced; removing \(highWaterMark?.path ?? "") accepts it as it is"
                )
            }
            if version < 2 {
                try ChangeLog.sealMigrated(database, key: integrityKey)
            } else if version < 5 {
                try ChangeLog.sealPrimaryKeys(database, key: integrityKey)
            }
            if version < 5 { try EngineState.markOlderBindings(database, key: integrityKey) }
        }
    }

    // MARK: Keybag

    /// The keybag's state.
    public func keybagStatus() throws(EngineError) -> KeybagStatus {
        let now = options.now()
        return try state.withLock { (state) throws(EngineError) -> KeybagStatus in
            let record = state.keybag.record
            // The identifier is bound into every wrapped class key, so a damaged one cannot open: never invent one.
            guard let keybagID = record.uuid.withUnsafeBytes({ UUID(bytes: $0) }) else {
                throw EngineError(.invalidKeychain, "the keybag's identifier is not 16 bytes")
            }
            return KeybagStatus(
                keybagID: keybagID, hasPasscode: state.keybag.hasPasscode,
                isLocked: !state.keybag.isUnlocked, hasBeenUnlocked: state.keybag.hasBeenUnlocked,
                failedAttempts: record.failedAttempts, retryAfter: record.retryAfter > now ? record.retryAfter : nil,
                eraseAfter: record.eraseAfter > 0 ? record.eraseAfter : nil, lockEpoch: state.keybag.lockEpoch)
        }
    }

    /// Whether items of a protection class can be read and written now.
    func isAvailable(_ protectionClass: ProtectionClass) -> Bool {
        state.withLock { state in (try? state.keybag.key(for: protectionClass)) != nil }
    }

    /// Loads every class key after checking the passcode; a wrong one counts towards the escalating waits.
    ///
    /// The passcode is stretched (Argon2id, about half a second at the standard cost) outside the engine's lock:
    /// other threads keep working meanwhile.
    public func unlock(passcode: Passcode) throws(EngineError) {
        var unlocked = false
        try withStretchedPasscode { (stored) throws(EngineError) -> Bool in
            guard let stored else { return true }
            let stretched = try StretchedPasscode(passcode, parameters: stored)
            unlocked = try state.withLock { (state) throws(EngineError) -> Bool in
                guard try state.keybag.unlock(with: stretched, in: state.database, now: options.now()) else {
                    return false
                }
                // The first unlock after an upgrade seals older rows again (best effort, as at open).
                try? state.rebindOlderRows()
                return true
            }
            return unlocked
        }
        if unlocked { didUnlock() }
        // A class may have become readable: change streams read again what they could not (never under the lock).
        notifier.signal()
    }

    /// Checks the passcode as an unlock does, counting a wrong one, and loads nothing: the lock state stays as it
    /// is. ``EngineError/Code/authFailed`` when no passcode is set.
    public func checkPasscode(_ passcode: Passcode) throws(EngineError) {
        try withStretchedPasscode { (stored) throws(EngineError) -> Bool in
            guard let stored else { throw EngineError(.authFailed, "the keychain has no passcode to check") }
            let stretched = try StretchedPasscode(passcode, parameters: stored)
            return try state.withLock { (state) throws(EngineError) -> Bool in
                try state.keybag.check(stretched, in: state.database, now: options.now())
            }
        }
    }

    /// Discards the keys of `ak`, `aku`, `akpu` and class B. No effect without a passcode.
    public func lock() {
        state.withLock { state in state.keybag.lock() }
    }

    /// Sets the passcode (`current` is `nil` when none is set) or changes it; the keychain is unlocked afterwards.
    public func setPasscode(_ passcode: Passcode, current: Passcode?) throws(EngineError) {
        let cost = options.passcodeCost
        try withStretchedPasscode { (stored) throws(EngineError) -> Bool in
            let currentKey: StretchedPasscode?
            switch (stored, current) {
            case (nil, _): currentKey = nil
            case (let stored?, let current?): currentKey = try StretchedPasscode(current, parameters: stored)
            case (.some, nil): throw EngineError(.authFailed, "the current passcode is required")
            }
            let newKey = try StretchedPasscode(newPasscode: passcode, cost: cost)
            return try state.withLock { (state) throws(EngineError) -> Bool in
                try state.keybag.setPasscode(newKey, current: currentKey, in: state.database, now: options.now())
            }
        }
        didUnlock()
    }

    /// Calls `handler` once, right after the keybag is first unlocked with a passcode (by ``unlock(passcode:)`` or
    /// ``setPasscode(_:current:)``): from then on this engine holds a lock state that opening the keychain again
    /// would not give back (`ck` keys after the first unlock, the unlocked classes). The handler gets the engine,
    /// so it need not capture it.
    package func whenFirstUnlocked(_ handler: @escaping @Sendable (Engine) -> Void) {
        firstUnlockHandler.withLock { $0 = handler }
        // Set first, then checked: an unlock in between calls it (once) either way.
        if state.withLock({ $0.keybag.hasPasscode && $0.keybag.hasBeenUnlocked }) { didUnlock() }
    }

    private func didUnlock() {
        let handler = firstUnlockHandler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        handler?(self)
    }

    /// Removes the passcode: every class becomes available from open, and `akpu` items are deleted.
    public func removePasscode(current: Passcode) throws(EngineError) {
        try withStretchedPasscode { (stored) throws(EngineError) -> Bool in
            let currentKey = try stored.map { (stored) throws(EngineError) in
                try StretchedPasscode(current, parameters: stored)
            }
            return try state.withLock { (state) throws(EngineError) -> Bool in
                try state.keybag.removePasscode(current: currentKey, in: state.database, now: options.now())
            }
        }
    }

    /// Runs a passcode operation in three steps: read the stored salt and cost under the lock, stretch outside
    /// it, apply under it again. `body` returns `false` when the passcode changed in between (another thread or
    /// process); the operation then starts over, a few times at most. `body` reads the clock again when it
    /// applies: an attempt is judged by when it ends, so a wrong attempt that started later but ended first
    /// cannot make this one look early.
    func withStretchedPasscode(
        _ body: (KeybagRecord.Passcode?) throws(EngineError) -> Bool
    ) throws(EngineError) {
        for _ in 0..<3 {
            let now = options.now()
            let stored = try state.withLock { (state) throws(EngineError) -> KeybagRecord.Passcode? in
                try state.keybag.passcodeParameters(in: state.database, now: now)
            }
            if try body(stored) { return }
        }
        throw EngineError(.authFailed, "the passcode kept changing while it was being checked; try again")
    }

    /// Erases the keychain after `failures` consecutive wrong passcodes (`0`: never, the default). With a passcode
    /// set, `passcode` must be the current one: it is checked as ``unlock(passcode:)`` checks it (outside the
    /// engine's lock; a wrong one counts towards the waits and the erase), and without it the change is
    /// ``EngineError/Code/authFailed``.
    public func setEraseAfter(failures: Int, passcode: Passcode?) throws(EngineError) {
        try Keybag.checkEraseAfter(failures)
        try withStretchedPasscode { (stored) throws(EngineError) -> Bool in
            let current: StretchedPasscode?
            switch (stored, passcode) {
            case (nil, _): current = nil
            case (let stored?, let passcode?): current = try StretchedPasscode(passcode, parameters: stored)
            case (.some, nil): throw Keybag.passcodeMissing
            }
            return try state.withLock { (state) throws(EngineError) -> Bool in
                try state.keybag.setEraseAfter(failures, current: current, in: state.database, now: options.now())
            }
        }
    }

    /// Sets the erase threshold without the passcode: keychaind does so for root only, who owns every keychain the
    /// daemon keeps (and could read its files).
    package func setEraseAfterAsAdministrator(failures: Int) throws(EngineError) {
        try state.withLock { (state) throws(EngineError) in
            try state.keybag.setEraseAfterAsAdministrator(failures, in: state.database, now: options.now())
        }
    }

    /// SQLite's `PRAGMA integrity_check` verdict: `"ok"` for a sound database.
    func integrityCheck() throws(EngineError) -> String {
        try state.withLock { (state) throws(EngineError) -> String in
            try state.database.first("PRAGMA integrity_check") { $0.text(0) } ?? "no answer"
        }
    }

    /// Moves the WAL's contents into the database file and truncates the WAL.
    func checkpoint() throws(EngineError) {
        try state.withLock { (state) throws(EngineError) in
            try state.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}

/// What the engine's lock guards. `@unchecked Sendable` because it is only ever touched inside
/// `Engine.state.withLock` (a batch borrows it there too, and is closed before the lock is released).
final class EngineState: @unchecked Sendable {
    let database: Database
    let keybag: Keybag
    let sealer: ItemSealer
    let store: ItemStore
    /// Why items must not be served (a rolled-back database or a damaged WAL), found when the engine opened.
    let refusal: EngineError?

    init(database: Database, keybag: Keybag, changeLog: ChangeLog, refusal: EngineError?) throws(EngineError) {
        self.database = database
        self.keybag = keybag
        self.refusal = refusal
        self.sealer = try ItemSealer(legacyCeiling: changeLog.legacyCeiling)
        self.store = ItemStore(database: database, changeLog: changeLog)
    }

    /// A search over this state.
    var search: ItemSearch { ItemSearch(keybag: keybag, sealer: sealer, store: store) }

    /// Throws the refusal, if any: every item operation calls it first.
    func checkServable() throws(EngineError) {
        if let refusal { throw refusal }
    }
}
