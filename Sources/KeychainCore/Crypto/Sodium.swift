import CSodium
import CSystem

/// libsodium's one-time initialisation, done once per process before any primitive is used.
enum Sodium {
    /// `true` once `sodium_init` has succeeded; evaluated lazily and thread-safely on first use.
    static let isInitialized: Bool = sodium_init() >= 0

    /// Ensures libsodium is initialised, or throws when it cannot be (no usable randomness source).
    static func ensureInitialized() throws(EngineError) {
        guard isInitialized else { throw .internalError("libsodium could not be initialised") }
    }

    /// How much of the stack ``wipeStack()`` clears: far more than the deepest primitive (Argon2id, BLAKE2b,
    /// XChaCha20-Poly1305) and the Swift frames between it and the caller use.
    static let stackWipeByteCount = 32 * 1024

    /// Zeroes the vector registers, then the stack below the caller's frame (`ck_scrub_stack`): primitives leave
    /// copies of what they computed in both (Argon2id's output, for one), and key material must live only in guarded
    /// memory. The registers go first: the next call the dynamic linker resolves lazily, or the next signal, would
    /// save them on the stack above the part wiped, where the caller's frames live.
    /// Call it when the calls that handled a key have returned.
    static func wipeStack() {
        ck_scrub_stack(stackWipeByteCount)
    }

    /// Zeroes `bytes` in place (`sodium_memzero`, which the compiler cannot drop), keeping their count: for
    /// plaintext buffers that held secrets and are reused.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
    }
}

/// Cryptographically secure random bytes from libsodium.
package enum RandomBytes {
    /// Returns `count` random bytes.
    package static func make(count: Int) throws(EngineError) -> [UInt8] {
        try Sodium.ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return bytes
    }
}
