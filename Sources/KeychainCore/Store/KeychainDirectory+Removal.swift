import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Recognising and removing an on-disk keychain, for tools that create and delete whole keychains.
extension KeychainDirectory {
    /// The device key first: once it is gone nothing left in the directory can be decrypted, so a removal
    /// interrupted half-way leaves no readable secret behind. Then SQLite's WAL and shared-memory files, the
    /// database, and last the high-water mark (so a half-removed keychain still refuses a rolled-back database).
    private var filesInRemovalOrder: [String] {
        [deviceKeyPath, databasePath + "-wal", databasePath + "-shm", databasePath, highWaterMarkPath]
    }

    /// Whether the directory holds a keychain: a database that is a SQLite file (or still empty, as `prepare()`
    /// leaves it until SQLite writes its header), or a device key.
    package var holdsKeychain: Bool {
        Self.file(at: databasePath, startsWith: Array("SQLite format 3\0".utf8), orIsEmpty: true)
            || Self.file(at: deviceKeyPath, startsWith: Array("SKDK".utf8), orIsEmpty: false)
    }

    /// Removes the keychain's files, then the directory when nothing else is left in it. Throws
    /// `noSuchKeychain` when the directory holds no keychain, and `invalidKeychain` when another user owns it or
    /// one of its files (as opening it does), and removes nothing then.
    package func remove() throws(EngineError) {
        guard holdsKeychain else {
            throw EngineError(.noSuchKeychain, "\(url.path) is not a keychain (no keychain.db or device.key in it)")
        }
        try checkOwnership()
        // The TPM counters first, while the device key that names them can still be read.
        TPMCounterBinding.releaseCounters(ofKeychainIn: self)
        for path in filesInRemovalOrder where unlink(path) != 0 && errno != ENOENT {
            throw EngineError(.ioError, "cannot remove \(path): \(Self.systemError())")
        }
        syncDirectory()
        // Only an empty directory goes: anything else in it is not ours to delete.
        if rmdir(url.path) == 0 {
            KeychainDirectory(url: url.deletingLastPathComponent()).syncDirectory()
        }
    }

    /// Whether the file at `path` is a regular file (not a link) that begins with `prefix`, or is empty when
    /// `orIsEmpty`.
    private static func file(at path: String, startsWith prefix: [UInt8], orIsEmpty: Bool) -> Bool {
        guard let file = try? FileDescriptor<EngineError>.open(path, O_RDONLY | O_NOFOLLOW),
            let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG
        else { return false }
        if status.st_size == 0 { return orIsEmpty }
        // Not `Optional == Array`: its conditional conformance costs a short-lived process a runtime search.
        guard let bytes = try? file.readBytes(count: prefix.count) else { return false }
        return bytes.elementsEqual(prefix)
    }
}
