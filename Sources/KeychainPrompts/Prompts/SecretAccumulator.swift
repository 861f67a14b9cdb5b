import KeychainCore

/// A secret being typed or received, a byte at a time, in guarded memory of a fixed capacity: nothing of it is
/// ever in an ordinary buffer, and ``finish()`` moves it into a region of exactly its length.
final class SecretAccumulator {
    /// The most bytes a prompted secret may have; a longer one is refused whole, never cut short.
    static let maximumByteCount = 1024

    private let storage: SecureBytes
    /// How many bytes are held.
    private(set) var count = 0
    /// Whether more than ``maximumByteCount`` bytes were offered (what came after the limit was dropped).
    private(set) var isOverLong = false

    init() throws(EngineError) {
        storage = try SecureBytes(count: Self.maximumByteCount)
    }

    /// Appends a byte, or notes that the secret is too long.
    func append(_ byte: UInt8) {
        guard count < Self.maximumByteCount else {
            isOverLong = true
            return
        }
        storage.withUnsafeMutableBytes { $0[count] = byte }
        count += 1
    }

    /// Removes the last character typed: a UTF-8 sequence's continuation bytes, then its first byte.
    func removeLastCharacter() {
        storage.withUnsafeMutableBytes { bytes in
            while count > 0 {
                count -= 1
                let byte = bytes[count]
                bytes[count] = 0
                if byte & 0xC0 != 0x80 { break }
            }
        }
    }

    /// Removes everything (Control-U).
    func removeAll() {
        storage.zero()
        count = 0
        isOverLong = false
    }

    /// The secret, in a region of its own length; `nil` when nothing was entered. Empties the accumulator.
    func finish() throws(EngineError) -> SecureBytes? {
        defer { removeAll() }
        guard count > 0 else { return nil }
        let secret = try SecureBytes(count: count)
        storage.withUnsafeBytes { source in
            secret.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<count])) }
        }
        return secret
    }
}
