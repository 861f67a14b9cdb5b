import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening a keychain directory: checking it, creating a new keychain all at once, and refusing a damaged one.
extension Engine {
    /// The device key and the database of the keychain in `directory`, creating the keychain when it has none.
    ///
    /// A new keychain is built under temporary names and linked into place, so a failure (a full disk, above all)
    /// leaves nothing behind: no empty `keychain.db`, no device key without a keybag. A database whose device key
    /// is missing is ``EngineError/Code/invalidKeychain`` and nothing is written: a new device key could never
    /// open what the old one wrapped.
    static func openFiles(
        of directory: KeychainDirectory, cost: PasscodeCost
    ) throws(EngineError) -> (SecretKey, Database) {
        let made = try directory.prepare()
        var created = false
        var opened: Database?
        // Another process may win the race to create it, with a device key of its own: then build again, under it.
        do throws(EngineError) {
            for _ in 0..<3 where !directory.databaseExists {
                created = try createKeychain(in: directory, cost: cost)
            }
            if created {
                // The first read makes SQLite's WAL and shared-memory files: on a full disk that fails, and the
                // keychain this call built goes again with its directory.
                let database = try Database(path: directory.databasePath)
                _ = try database.first("PRAGMA user_version") { $0.integer(0) }
                opened = database
            }
        } catch {
            // Nothing of a keychain that could not be built stays behind, not even its directory.
            if created { try? directory.remove() }
            directory.removeMade(made)
            throw error
        }
        let deviceKey: SecretKey
        if directory.databaseIsEmpty {
            // An empty database an earlier build left: it holds nothing, so it is filled in place as it was then.
            deviceKey = try DeviceKey.loadOrCreate(in: directory)
        } else if let key = try DeviceKey.existing(in: directory) {
            deviceKey = key
        } else {
            throw EngineError(
                .invalidKeychain,
                "the keychain's device key \(directory.deviceKeyPath) is missing, and nothing in keychain.db can be "
                    + "decrypted without it; nothing was changed (restore device.key from a backup)")
        }
        if let opened { return (deviceKey, opened) }
        return (deviceKey, try Database(path: directory.databasePath))
    }

    /// Builds a new keychain under temporary names (the device key, unless one is there already, and a database
    /// with its schema and a fresh keybag, checkpointed and synced), then links the device key into place and then
    /// the database. Returns without linking the database when another process installed its device key first;
    /// `true` when this call linked it.
    private static func createKeychain(
        in directory: KeychainDirectory, cost: PasscodeCost
    ) throws(EngineError) -> Bool {
        let suffix = ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let staged = directory.databasePath + suffix
        var stagedKey: String?
        defer {
            for path in [staged, staged + "-wal", staged + "-shm"] { unlink(path) }
            if let stagedKey { unlink(stagedKey) }
        }
        let deviceKey: SecretKey
        if let existing = try DeviceKey.existing(in: directory) {
            deviceKey = existing
        } else {
            let (key, path) = try DeviceKey.stage(in: directory, suffix: suffix)
            deviceKey = key
            stagedKey = path
        }
        try directory.createFile(at: staged)
        try fill(staged, deviceKey: deviceKey, cost: cost)
        try directory.syncFile(at: staged)
        if let stagedKey, try !DeviceKey.install(stagedKey, in: directory) { return false }
        guard link(staged, directory.databasePath) == 0 else {
            guard errno == EEXIST else {
                // The device key this call installed protects nothing yet: it goes too.
                if stagedKey != nil, !directory.databaseExists { unlink(directory.deviceKeyPath) }
                throw EngineError(
                    KeychainDirectory.systemErrorCode(),
                    "cannot install the keychain database \(directory.databasePath): \(KeychainDirectory.systemError())"
                )
            }
            return false
        }
        directory.syncDirectory()
        return true
    }

    /// Writes the schema and a fresh keybag into the staged database, then moves everything from its WAL into the
    /// file and closes it.
    private static func fill(_ path: String, deviceKey: SecretKey, cost: PasscodeCost) throws(EngineError) {
        let database = try Database(path: path)
        try migrate(database, integrityKey: try ChangeLog.integrityKey(deviceKey: deviceKey), highWaterMark: nil)
        _ = try Keybag.open(database: database, deviceKey: deviceKey, cost: cost)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
