import CSodium

/// A 256-bit symmetric key held in locked memory and zeroed when the last copy is released.
///
/// A key cannot be printed or compared with `==`; `description` is redacted.
///
/// The one crypto type the `KeychainCore` product shows: a protected file's key crosses `FileKeyStore`'s
/// requirements (`wrapFileKey(_:for:context:)`, `unwrapFileKey(_:for:context:)`), so a client that stores files and
/// any backend that implements them must be able to make, read and compare one. The primitives that use keys stay
/// inside the package.
public struct SecretKey: Sendable, CustomStringConvertible {
    /// The size of every symmetric key, in bytes.
    public static let byteCount = 32

    let storage: SecureBytes

    init(storage: SecureBytes) {
        self.storage = storage
    }

    /// A new random key.
    public static func random() throws(EngineError) -> SecretKey {
        let storage = try SecureBytes(count: byteCount)
        storage.fillRandom()
        return SecretKey(storage: storage)
    }

    /// A key whose bytes are copied from `bytes`, which must hold exactly ``byteCount`` bytes.
    public init(copying bytes: some Collection<UInt8>) throws(EngineError) {
        guard bytes.count == Self.byteCount else {
            throw .param("a key must be \(Self.byteCount) bytes, not \(bytes.count)")
        }
        let storage = try SecureBytes(count: Self.byteCount)
        storage.withUnsafeMutableBytes { buffer in
            buffer.copyBytes(from: bytes)
        }
        self.storage = storage
    }

    /// An empty key, to be filled by a primitive that writes directly into locked memory.
    static func zeroed() throws(EngineError) -> SecretKey {
        SecretKey(storage: try SecureBytes(count: byteCount))
    }

    /// Reads the key's bytes. The buffer must not escape the closure.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeBytes(body)
    }

    /// Compares two keys in constant time.
    public func constantTimeEquals(_ other: SecretKey) -> Bool {
        storage.constantTimeEquals(other.storage)
    }

    /// A redacted description: key bytes are never printed.
    public var description: String { "SecretKey(redacted)" }
}
