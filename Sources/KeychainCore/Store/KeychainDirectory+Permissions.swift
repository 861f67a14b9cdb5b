import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a keychain directory must be before the engine trusts it, as OpenSSH's StrictModes requires of `~/.ssh`:
/// owned by the user who opens it (or root), writable by no one else, and its files (the database, SQLite's WAL and
/// shared-memory files, the device key, the high-water mark) regular files owned the same way and readable by no one else. A symbolic
/// link to a directory that passes the same checks is fine. Every refusal is ``EngineError/Code/invalidKeychain``
/// and names the path and the command that fixes it.
extension KeychainDirectory {
    /// The keychain's files that must be private, when they exist.
    private var privateFiles: [String] {
        [databasePath, databasePath + "-wal", databasePath + "-shm", deviceKeyPath, highWaterMarkPath]
    }

    /// Creates the directory and any missing parent 0700, whatever the umask; returns those it made, outermost
    /// first (on a failure half-way, it removes them again).
    func createDirectories() throws(EngineError) -> [String] {
        var missing: [String] = []
        var current = url.standardizedFileURL
        var status = stat()
        while current.path != "/", lstat(current.path, &status) != 0 {
            guard errno == ENOENT else {
                throw EngineError(.ioError, "cannot examine \(current.path): \(Self.systemError())")
            }
            missing.append(current.path)
            current = current.deletingLastPathComponent()
        }
        var made: [String] = []
        for path in missing.reversed() {
            guard mkdir(path, 0o700) == 0 else {
                if errno == EEXIST { continue }  // another process made it meanwhile; checked below all the same
                let error = EngineError(
                    Self.systemErrorCode(), "cannot create the directory \(path): \(Self.systemError())")
                removeMade(made)
                throw error
            }
            made.append(path)
            // The umask may have taken bits from 0700 (a umask of 0277 leaves 0500, which we could not write).
            chmod(path, 0o700)
        }
        return made
    }

    /// Refuses a directory or files that others own or could write, or files that others could read.
    func checkPermissions() throws(EngineError) {
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw EngineError(.ioError, "cannot examine the keychain directory \(path): \(Self.systemError())")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw EngineError(.invalidKeychain, "the keychain path \(path) exists and is not a directory")
        }
        try checkOwner(status, path, what: "the keychain directory")
        guard status.st_mode & 0o022 == 0 else {
            throw EngineError(
                .invalidKeychain,
                "the keychain directory \(path) is writable by \(Self.others(status.st_mode & 0o022)) "
                    + "(mode \(Self.mode(status))): run chmod 700 \(path)")
        }
        for file in privateFiles {
            guard lstat(file, &status) == 0 else {
                if errno == ENOENT { continue }
                throw EngineError(.ioError, "cannot examine \(file): \(Self.systemError())")
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw EngineError(
                    .invalidKeychain,
                    "\(file) is not a regular file (a link or a special file): the keychain's files must be "
                        + "regular files in its directory")
            }
            try checkOwner(status, file, what: "")
            guard status.st_mode & 0o077 == 0 else {
                throw EngineError(
                    .invalidKeychain,
                    "\(file) is readable or writable by \(Self.others(status.st_mode & 0o077)) (mode \(Self.mode(status))): "
                        + "run chmod 600 \(file)")
            }
        }
    }

    /// Refuses a directory, or a file of its keychain, that another user owns: what deleting the keychain checks
    /// (its modes may be wrong, which is no reason to keep it; another user's keychain is not ours to delete).
    func checkOwnership() throws(EngineError) {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            throw EngineError(.ioError, "cannot examine the keychain directory \(url.path): \(Self.systemError())")
        }
        try checkOwner(status, url.path, what: "the keychain directory")
        for file in privateFiles where lstat(file, &status) == 0 {
            try checkOwner(status, file, what: "")
        }
    }

    /// The owner must be the effective user or root (as OpenSSH allows).
    private func checkOwner(_ status: stat, _ path: String, what: String) throws(EngineError) {
        let user = geteuid()
        guard status.st_uid != user && status.st_uid != 0 else { return }
        let name = what.isEmpty ? path : "\(what) \(path)"
        throw EngineError(
            .invalidKeychain,
            "\(name) is owned by uid \(status.st_uid), not by uid \(user) who opens it: run chown \(user) \(path), "
                + "or use a keychain directory of your own")
    }

    /// "group", "others" or "group and others": who the group (0o070) and other (0o007) bits of `bits` let in.
    private static func others(_ bits: mode_t) -> String {
        switch (bits & 0o070 != 0, bits & 0o007 != 0) {
        case (true, true): "group and others"
        case (true, false): "group"
        default: "others"
        }
    }

    private static func mode(_ status: stat) -> String {
        "0" + String(status.st_mode & 0o777, radix: 8)
    }
}
