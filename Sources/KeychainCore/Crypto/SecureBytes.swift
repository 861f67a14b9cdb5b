import CSodium

/// A fixed-size region of guarded, locked memory (`sodium_malloc`) that is zeroed when released.
///
/// Key material lives only here. The region is never printed, copied into ordinary memory by this type, or
/// compared in variable time.
package final class SecureBytes: @unchecked Sendable {
    /// The number of bytes in the region.
    package let count: Int
    private let base: UnsafeMutableRawPointer

    /// Allocates `count` bytes of locked memory, filled with zeroes.
    package init(count: Int) throws(EngineError) {
        try Sodium.ensureInitialized()
        guard count > 0, let base = sodium_malloc(count) else {
            throw .allocate("could not allocate \(count) bytes of locked memory for key material")
        }
        sodium_memzero(base, count)
        self.base = base
        self.count = count
    }

    deinit {
        // sodium_free zeroes the region, unlocks it and releases its guard pages.
        sodium_free(base)
    }

    /// Reads the bytes.
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Writes the bytes.
    package func withUnsafeMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Overwrites the bytes with random bytes.
    package func fillRandom() {
        randombytes_buf(base, count)
    }

    /// Overwrites the bytes with zeroes.
    package func zero() {
        sodium_memzero(base, count)
    }

    /// Compares with another region in constant time.
    package func constantTimeEquals(_ other: SecureBytes) -> Bool {
        count == other.count && sodium_memcmp(base, other.base, count) == 0
    }
}
