import CSodium
import Foundation

/// SHA-256 (`crypto_hash_sha256`) of a whole file, read in chunks through ``FileDescriptor``: keychaind's
/// fingerprint of a registered app's executable.
package enum FileDigest {
    /// The SHA-256 of what `file` reads from its current offset to the end.
    package static func sha256(of file: FileDescriptor<EngineError>) throws(EngineError) -> Data {
        try Sodium.ensureInitialized()
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        // Array's withUnsafeMutableBytes throws untyped errors; a buffer of its own keeps the read's typed one.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = try file.read(into: buffer)
            if count == 0 { break }
            _ = crypto_hash_sha256_update(
                &state, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(count))
            if count < buffer.count { break }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return Data(digest)
    }

    /// The SHA-256 of the file at `path` (links followed).
    package static func sha256(ofFileAt path: String) throws(EngineError) -> Data {
        try sha256(of: FileDescriptor<EngineError>.open(path, O_RDONLY))
    }
}
