import CSodium

/// libsodium's one-time initialisation, done once per process before any primitive is used.
enum Sodium {
    /// `true` once `sodium_init` has succeeded; evaluated lazily and thread-safely on first use.
    static let isInitialized: Bool = sodium_init() >= 0

    /// Ensures libsodium is initialised, or throws when it cannot be (no usable randomness source).
    static func ensureInitialized() throws(EngineError) {
        guard isInitialized else { throw .internalError("libsodium could not be initialised") }
    }
}

/// Cryptographically secure random bytes from libsodium.
public enum RandomBytes {
    /// Returns `count` random bytes.
    public static func make(count: Int) throws(EngineError) -> [UInt8] {
        try Sodium.ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return bytes
    }
}
