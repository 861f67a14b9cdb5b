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
/// check but never makes a sound keychain look rolled back.
///
/// Someone who can write the keychain directory can also put back an older copy of this file with the database.
/// Where the device key is sealed by a TPM, the mark is bound to a monotonic counter in that TPM
/// (``TPMCounterBinding``): format 2 of the file also records the counter's value, and a file whose value is below
/// the TPM's was put back from an earlier copy, which is refused (`errSecDecode`, "rolled back"). The counter is not
/// advanced at every write — an NV write takes milliseconds and wears the TPM's memory (typically rated for some
/// 100,000s of writes) — but once every ``counterInterval`` sequences: the file is written with the next value and
/// synced first, then the counter is incremented, so a crash in between leaves the file one ahead of the TPM, which
/// is accepted. The price: a copy taken less than ``counterInterval`` writes before it is put back is not told
/// apart from the present (the database check still refuses a database older than the file).
final class HighWaterMark {
    /// The file's path.
    let path: String
    /// The open file; `nil` when it is missing and cannot be created (a read-only directory).
    private let file: FileDescriptor<EngineError>?
    private let writable: Bool
    private let key: SecretKey
    /// The TPM counter the mark is bound to, when the device key is sealed by a TPM.
    private let counter: TPMCounterBinding?

    /// How many sequences the mark may advance before the TPM counter is incremented again.
    static let counterInterval: Int64 = 32

    private static let magic: [UInt8] = Array("KCHW".utf8) + [1, 0, 0, 0]
    private static let boundMagic: [UInt8] = Array("KCHW".utf8) + [2, 0, 0, 0]
    private static let byteCount = 32
    private static let boundByteCount = 48

    /// What the file records.
    private struct Stored {
        var sequence: Int64
        /// The TPM counter's value (format 2), and the sequence the counter was last incremented at.
        var counter: (value: UInt64, sequence: Int64)?
    }

    /// Opens (creating when missing, 0600) the file at `path`; read-only when the directory cannot be written. A
    /// keychain whose device key was sealed by a TPM before counters were bound (its counter new in this TPM)
    /// records the counter's value now.
    init(path: String, key: SecretKey) throws(EngineError) {
        self.path = path
        self.key = key
        self.counter = TPMCounterBinding.registered(for: key, purpose: .highWaterMark)
        if let file = try? FileDescriptor<EngineError>.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600) {
            self.file = file
            writable = true
        } else {
            file = try FileDescriptor.openIfExists(path, O_RDONLY | O_NOFOLLOW)
            writable = false
        }
        if let counter, counter.isNew, writable, let file {
            let value = try counter.value()
            try file.withExclusiveLock { () throws(EngineError) in
                // A mark that records a value of the counter was bound to it: the counter was undefined since (by
                // whoever holds the TPM's owner hierarchy), and the one defined anew starts at the highest value any
                // counter had, so ``read()`` tells a copy put back from before. Rebinding would accept any copy.
                if storedUnchecked()?.counter != nil { return }
                let sequence = storedUnchecked()?.sequence ?? 0
                try file.write(try Self.encode(Stored(sequence: sequence, counter: (value, sequence)), key: key), at: 0)
                try file.synchronize()
            }
        }
    }

    /// The recorded sequence, or `nil` when the file is missing or empty (a keychain from before the file existed).
    /// Throws `errSecDecode` when the file is damaged, or when the TPM's counter shows it was put back from an
    /// earlier copy.
    func read() throws(EngineError) -> Int64? {
        guard let bytes = storedBytes() else { return nil }
        guard let stored = Self.decode(bytes) else { throw damaged() }
        guard KeyedHash.equal(Self.macBytes(bytes), try Self.mac(stored, key: key)) else { throw damaged() }
        if let counter {
            let current = try counter.value()
            guard let recorded = stored.counter?.value else {
                if counter.isNew { return stored.sequence }
                throw try rolledBack(counter, recorded: nil, current: current)
            }
            // One ahead: a crash between writing this file and incrementing the counter.
            if recorded < current { throw try rolledBack(counter, recorded: recorded, current: current) }
            if recorded > current + 1 {
                throw EngineError(
                    .decode,
                    "the keychain's high-water mark \(path) records the TPM counter at \(recorded), ahead of the "
                        + "TPM's \(current): the counter was replaced or the mark belongs to another TPM")
            }
        }
        return stored.sequence
    }

    /// Checks that a keychain bound to a TPM counter has its mark when its database has changes (`newest`, the
    /// newest change's sequence): a bound keychain's mark is written at its first open, so a missing one with changes
    /// recorded was removed or put back from a copy older than the keychain's first open. A keychain with no change
    /// yet gets its mark now.
    func checkPresent(newest: Int64) throws(EngineError) {
        guard let counter, storedBytes() == nil else { return }
        guard newest == 0, writable, let file else { throw try rolledBack(counter, recorded: nil) }
        let value = try counter.value()
        try file.withExclusiveLock { () throws(EngineError) in
            guard storedBytes() == nil else { return }
            try file.write(try Self.encode(Stored(sequence: 0, counter: (value, 0)), key: key), at: 0)
            try file.synchronize()
        }
    }

    /// Records the TPM counter's current value with the current sequence (synced), for a keychain whose device key
    /// is being moved into the TPM: from then on the mark is bound to the counter.
    func bindToCounter() throws(EngineError) {
        guard let counter else { return }
        guard writable, let file else {
            throw EngineError(.writePermission, "cannot bind the high-water mark \(path) to the TPM: it is read-only")
        }
        let value = try counter.value()
        try file.withExclusiveLock { () throws(EngineError) in
            let sequence = storedUnchecked()?.sequence ?? 0
            try file.write(try Self.encode(Stored(sequence: sequence, counter: (value, sequence)), key: key), at: 0)
            try file.synchronize()
        }
    }

    /// Raises the recorded sequence to `sequence` unless it is already as high (another process may have raised
    /// it further), advancing the TPM counter when the mark passed ``counterInterval`` sequences since it last did.
    /// Failures are ignored: the commit is already durable, and a lower mark only weakens the check.
    func raise(to sequence: Int64) {
        guard writable, let file else { return }
        try? file.withExclusiveLock { () throws(EngineError) in
            let current = storedUnchecked()
            if let current, current.sequence >= sequence { return }
            guard let counter else {
                // A counter value recorded while the device key was in the TPM is kept (a keychain moved out of the
                // TPM and back, or another process still holding the TPM's key, then agrees with the counter).
                try file.write(try Self.encode(Stored(sequence: sequence, counter: current?.counter), key: key), at: 0)
                return
            }
            var next = Stored(sequence: sequence, counter: current?.counter)
            let lastAdvance = current?.counter?.sequence ?? 0
            guard let recorded = current?.counter?.value, sequence - lastAdvance < Self.counterInterval else {
                // The file first, synced, then the counter: a crash between leaves the file one ahead (accepted).
                let value = try counter.value() + 1
                next.counter = (value, sequence)
                try file.write(try Self.encode(next, key: key), at: 0)
                try file.synchronize()
                _ = try counter.increment()
                return
            }
            next.counter = (recorded, lastAdvance)
            try file.write(try Self.encode(next, key: key), at: 0)
        }
    }

    /// The recorded values without checking the hash: enough to keep the mark from going down (a damaged file is
    /// simply written over with a sound, higher mark).
    private func storedUnchecked() -> Stored? {
        storedBytes().flatMap(Self.decode)
    }

    /// What the file holds (at most its 48 bytes; nothing when it cannot be read, which reads as damage), or `nil`
    /// when it is missing or empty.
    private func storedBytes() -> [UInt8]? {
        guard let file else { return nil }
        guard let bytes = try? file.readBytes(count: Self.boundByteCount, at: 0) else { return [] }
        return bytes.isEmpty ? nil : bytes
    }

    private static func decode(_ bytes: [UInt8]) -> Stored? {
        let header = Array(bytes.prefix(8))
        if header == magic, bytes.count == byteCount {
            return Stored(sequence: integer(bytes, at: 8))
        }
        guard header == boundMagic, bytes.count == boundByteCount else { return nil }
        return Stored(
            sequence: integer(bytes, at: 8),
            counter: (UInt64(bitPattern: integer(bytes, at: 16)), integer(bytes, at: 24)))
    }

    private static func integer(_ bytes: [UInt8], at offset: Int) -> Int64 {
        bytes[offset..<offset + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    private static func macBytes(_ bytes: [UInt8]) -> Data {
        Data(bytes.suffix(16))
    }

    private static func encode(_ stored: Stored, key: SecretKey) throws(EngineError) -> [UInt8] {
        var bytes = stored.counter == nil ? magic : boundMagic
        bytes.appendLittleEndian(stored.sequence)
        if let counter = stored.counter {
            bytes.appendLittleEndian(Int64(bitPattern: counter.value))
            bytes.appendLittleEndian(counter.sequence)
        }
        bytes.append(contentsOf: try mac(stored, key: key))
        return bytes
    }

    private static func mac(_ stored: Stored, key: SecretKey) throws(EngineError) -> Data {
        var input: [UInt8] = Array((stored.counter == nil ? "hwm1" : "hwm2").utf8)
        input.appendLittleEndian(stored.sequence)
        if let counter = stored.counter {
            input.appendLittleEndian(Int64(bitPattern: counter.value))
            input.appendLittleEndian(counter.sequence)
        }
        return try KeyedHash.hash(input, key: key, outputByteCount: 16)
    }

    private func rolledBack(
        _ counter: TPMCounterBinding, recorded: UInt64?, current: UInt64? = nil
    ) throws(EngineError) -> EngineError {
        let value: UInt64
        if let current { value = current } else { value = try counter.value() }
        let mark = recorded.map { "the mark \(path) says \(String($0))" } ?? "the mark \(path) records no value of it"
        return EngineError(
            .decode,
            "the keychain was rolled back: the TPM's counter says \(value), \(mark); the keychain directory was put "
                + "back from an earlier copy, so items written since would be missing or stale (restore the newer "
                + "files; the TPM counter cannot be set back)")
    }

    private func damaged() -> EngineError {
        // Bound to a TPM counter, a removed mark reads as a rollback: only a sound copy of the file helps then.
        let remedy =
            counter == nil
            ? "remove it to accept the database as it is now"
            : "restore it from the keychain's latest copy (the TPM's counter refuses a keychain without it)"
        return EngineError(.decode, "the keychain's high-water mark file \(path) is damaged; \(remedy)")
    }
}
