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

    /// Reads the device key of `directory`, creating it when the keychain is new.
    static func loadOrCreate(in directory: KeychainDirectory) throws(EngineError) -> SecretKey {
        if let key = try readKey(at: directory.deviceKeyPath) { return key }
        try create(in: directory)
        guard let key = try readKey(at: directory.deviceKeyPath) else {
            throw EngineError(.ioError, "the device key \(directory.deviceKeyPath) vanished while it was created")
        }
        return key
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

    /// Writes a new key to a temporary file, then links it into place: if another process won the race, its key
    /// stays and ours is discarded.
    private static func create(in directory: KeychainDirectory) throws(EngineError) {
        let temporary = directory.deviceKeyPath + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw EngineError(.ioError, "cannot create the device key: \(KeychainDirectory.systemError())")
        }
        defer { unlink(temporary) }
        let key = try SecretKey.random()
        let written =
            write(descriptor, magic, magic.count)
            + key.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress, buffer.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == fileByteCount, synced else {
            throw EngineError(.ioError, "cannot write the device key: \(KeychainDirectory.systemError())")
        }
        guard link(temporary, directory.deviceKeyPath) == 0 || errno == EEXIST else {
            throw EngineError(.ioError, "cannot install the device key: \(KeychainDirectory.systemError())")
        }
        directory.syncDirectory()
    }
}
