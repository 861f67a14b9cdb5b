import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The highest change sequence this keychain has acknowledged, kept in a file beside the database
/// (`keychain.hwm`) so that a rollback of the database — an older copy put back, or a damaged WAL whose later
/// frames SQLite then ignores — cannot roll it back too.
///
/// The file holds a magic, the sequence and a keyed hash of it (32 bytes). It is raised after each commit is
/// durable, never before, so a crash can only leave it lower than the database (which proves nothing), never
/// higher. It is not synced to disk on every commit: a power cut may lose its latest raises, which weakens the
/// check but never makes a sound keychain look rolled back. Someone who can write the keychain directory can
/// also delete or replace this file; only a monotonic counter outside the file system (a TPM's) would stop that.
final class HighWaterMark {
    /// The file's path.
    let path: String
    /// The open file; `nil` when it is missing and cannot be created (a read-only directory).
    private let file: FileDescriptor<EngineError>?
    private let writable: Bool
    private let key: SecretKey

    private static let magic: [UInt8] = Array("KCHW".utf8) + [1, 0, 0, 0]
    private static let byteCount = 32

    /// Opens (creating when missing, 0600) the file at `path`; read-only when the directory cannot be written.
    init(path: String, key: SecretKey) throws(EngineError) {
        self.path = path
        self.key = key
        if let file = try? FileDescriptor<EngineError>.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600) {
            self.file = file
            writable = true
        } else {
            file = try FileDescriptor.openIfExists(path, O_RDONLY | O_NOFOLLOW)
            writable = false
        }
    }

    /// The recorded sequence, or `nil` when the file is missing or empty (a keychain from before the file existed).
    func read() throws(EngineError) -> Int64? {
        guard let bytes = storedBytes() else { return nil }
        guard bytes.count == Self.byteCount, Array(bytes[0..<8]) == Self.magic else { throw damaged() }
        let sequence = Self.sequence(in: bytes)
        guard KeyedHash.equal(Data(bytes[16..<32]), try Self.mac(sequence, key: key)) else { throw damaged() }
        return sequence
    }

    /// Raises the recorded sequence to `sequence` unless it is already as high (another process may have raised
    /// it further). Failures are ignored: the commit is already durable, and a lower mark only weakens the check.
    func raise(to sequence: Int64) {
        guard writable, let file else { return }
        try? file.withExclusiveLock { () throws(EngineError) in
            if let current = storedSequence(), current >= sequence { return }
            try file.write(try Self.encode(sequence, key: key), at: 0)
        }
    }

    /// The recorded sequence without checking its hash: enough to keep the mark from going down (a damaged file is
    /// simply written over with a sound, higher mark).
    private func storedSequence() -> Int64? {
        guard let bytes = storedBytes(), bytes.count == Self.byteCount, Array(bytes[0..<8]) == Self.magic else {
            return nil
        }
        return Self.sequence(in: bytes)
    }

    /// What the file holds (at most its 32 bytes; nothing when it cannot be read, which reads as damage), or `nil`
    /// when it is missing or empty.
    private func storedBytes() -> [UInt8]? {
        guard let file else { return nil }
        guard let bytes = try? file.readBytes(count: Self.byteCount, at: 0) else { return [] }
        return bytes.isEmpty ? nil : bytes
    }

    private static func sequence(in bytes: [UInt8]) -> Int64 {
        bytes[8..<16].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    private static func encode(_ sequence: Int64, key: SecretKey) throws(EngineError) -> [UInt8] {
        var bytes = magic
        bytes.appendLittleEndian(sequence)
        bytes.append(contentsOf: try mac(sequence, key: key))
        return bytes
    }

    private static func mac(_ sequence: Int64, key: SecretKey) throws(EngineError) -> Data {
        var input: [UInt8] = Array("hwm1".utf8)
        input.appendLittleEndian(sequence)
        return try KeyedHash.hash(input, key: key, outputByteCount: 16)
    }

    private func damaged() -> EngineError {
        EngineError(
            .decode,
            "the keychain's high-water mark file \(path) is damaged; remove it to accept the database as it is now")
    }
}
