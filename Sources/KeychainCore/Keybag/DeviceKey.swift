import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The device key: 32 random bytes in a 0600 file beside the database, the root of every other key (the
/// iPhone's UID key). Created once, atomically, even when several processes open a new keychain together.
///
/// Format 1 holds the key itself; format 2 holds it sealed by a TPM (``DeviceKeyTPM``), chosen when a new key is
/// made where a TPM answers.
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
        guard let file = try FileDescriptor<EngineError>.openIfExists(path, O_RDONLY | O_NOFOLLOW) else { return nil }
        let status = try file.status()
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw EngineError(.invalidKeychain, "the device key \(path) is not a regular file")
        }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw EngineError(
                .invalidKeychain, "the device key \(path) is readable by others (mode \(mode)); run chmod 600 on it")
        }
        let header = try file.readBytes(count: magic.count)
        if header == DeviceKeyTPM.magic {
            let blob = try file.readBytes(count: DeviceKeyTPM.maximumBlobByteCount + 1)
            guard blob.count <= DeviceKeyTPM.maximumBlobByteCount else {
                throw EngineError(.invalidKeychain, "the device key \(path) is damaged (too long for a sealed key)")
            }
            return try DeviceKeyTPM.unseal(blob, path: path)
        }
        let key = try SecretKey.zeroed()
        let keyCount = try key.storage.withUnsafeMutableBytes { (buffer) throws(EngineError) -> Int in
            try file.read(into: buffer)
        }
        guard header == magic, keyCount == SecretKey.byteCount, Int(status.st_size) == fileByteCount else {
            throw EngineError(.invalidKeychain, "the device key \(path) is damaged")
        }
        return key
    }

    /// Writes a new key to a temporary file beside the device key's place (the caller links it there with
    /// ``install(_:in:)`` and removes the temporary file either way).
    static func stage(in directory: KeychainDirectory, suffix: String) throws(EngineError) -> (SecretKey, String) {
        let temporary = directory.deviceKeyPath + suffix
        let tpm = try DeviceKeyTPM.contextForNewKey()
        let file = try FileDescriptor<EngineError>.createExclusively(temporary)
        do throws(EngineError) {
            let key = try SecretKey.random()
            if let tpm {
                try file.write(try DeviceKeyTPM.sealedFile(key, by: tpm))
            } else {
                try file.write(magic)
                try key.withUnsafeBytes { (buffer) throws(EngineError) in try file.write(buffer) }
            }
            try file.synchronize()
            try file.close()
            return (key, temporary)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The bytes of a format-1 `device.key` holding `key` (the caller zeroes them after writing).
    static func fileContents(_ key: SecretKey) -> [UInt8] {
        magic + key.withUnsafeBytes { Array($0) }
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
