import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The device key: 32 random bytes in a 0600 file beside the database, the root of every other key (the
/// iPhone's UID key). Created once, atomically, even when several processes open a new keychain together.
enum DeviceKey {
    private static let magic: [UInt8] = Array("SKDK".utf8) + [1]
    private static var fileByteCount: Int { magic.count + SecretKey.byteCount }

    /// Reads the device key of `directory`, creating it when missing (only for a database an earlier build left
    /// empty: a new keychain stages its key with ``stage(in:suffix:)``).
    static func loadOrCreate(in directory: KeychainDirectory) throws(EngineError) -> SecretKey {
        if let key = try existing(in: directory) { return key }
        let (_, staged) = try stage(in: directory, suffix: ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        defer { unlink(staged) }
        _ = try install(staged, in: directory)
        guard let key = try existing(in: directory) else {
            throw EngineError(.ioError, "the device key \(directory.deviceKeyPath) vanished while it was created")
        }
        return key
    }

    /// The device key of `directory`, or `nil` when it has none.
    static func existing(in directory: KeychainDirectory) throws(EngineError) -> SecretKey? {
        try readKey(at: directory.deviceKeyPath)
    }

    private static func readKey(at path: String) throws(EngineError) -> SecretKey? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw EngineError(.ioError, "cannot open the device key \(path): \(KeychainDirectory.systemError())")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw EngineError(.invalidKeychain, "the device key \(path) is not a regular file")
        }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw EngineError(
                .invalidKeychain, "the device key \(path) is readable by others (mode \(mode)); run chmod 600 on it")
        }
        let key = try SecretKey.zeroed()
        var header = [UInt8](repeating: 0, count: magic.count)
        let headerCount = read(descriptor, &header, header.count)
        let keyCount = key.storage.withUnsafeMutableBytes { buffer in
            read(descriptor, buffer.baseAddress, buffer.count)
        }
        guard headerCount == magic.count, header == magic, keyCount == SecretKey.byteCount,
            Int(status.st_size) == fileByteCount
        else {
            throw EngineError(.invalidKeychain, "the device key \(path) is damaged")
        }
        return key
    }

    /// Writes a new key to a temporary file beside the device key's place (the caller links it there with
    /// ``install(_:in:)`` and removes the temporary file either way).
    static func stage(in directory: KeychainDirectory, suffix: String) throws(EngineError) -> (SecretKey, String) {
        let temporary = directory.deviceKeyPath + suffix
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw EngineError(
                KeychainDirectory.systemErrorCode(), "cannot create the device key: \(KeychainDirectory.systemError())")
        }
        let key = try SecretKey.random()
        let written =
            write(descriptor, magic, magic.count)
            + key.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress, buffer.count) }
        let synced = written == fileByteCount && fsync(descriptor) == 0
        let code = KeychainDirectory.systemErrorCode()
        let reason = KeychainDirectory.systemError()
        close(descriptor)
        guard synced else {
            unlink(temporary)
            throw EngineError(code, "cannot write the device key: \(reason)")
        }
        return (key, temporary)
    }

    /// Links a staged key into place; `false` when another process installed one first (its key stays).
    static func install(_ staged: String, in directory: KeychainDirectory) throws(EngineError) -> Bool {
        guard link(staged, directory.deviceKeyPath) == 0 else {
            if errno == EEXIST { return false }
            throw EngineError(
                KeychainDirectory.systemErrorCode(),
                "cannot install the device key: \(KeychainDirectory.systemError())")
        }
        directory.syncDirectory()
        return true
    }
}
