import CSodium
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// SHA-256 (`crypto_hash_sha256`) of a whole file, read in chunks: keychaind's fingerprint of a registered app's
/// executable.
package enum FileDigest {
    /// The SHA-256 of what `descriptor` reads from its current offset to the end.
    package static func sha256(of descriptor: Int32) throws(EngineError) -> Data {
        try Sodium.ensureInitialized()
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw EngineError(.ioError, "cannot read a file to hash it: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            buffer.withUnsafeBufferPointer { _ = crypto_hash_sha256_update(&state, $0.baseAddress, UInt64(count)) }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return Data(digest)
    }

    /// The SHA-256 of the file at `path` (links followed).
    package static func sha256(ofFileAt path: String) throws(EngineError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EngineError(.ioError, "cannot open \(path) to hash it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return try sha256(of: descriptor)
    }
}
