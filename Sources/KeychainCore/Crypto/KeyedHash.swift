import CSodium
import Foundation

/// Keyed BLAKE2b (`crypto_generichash`): blind indexes and key derivation.
package enum KeyedHash {
    /// Hashes `message` under `key` into `outputByteCount` bytes (16 to 64).
    package static func hash(
        _ message: some ContiguousBytes, key: SecretKey, outputByteCount: Int = 32
    ) throws(EngineError) -> Data {
        try Sodium.ensureInitialized()
        var output = Data(count: outputByteCount)
        let status = output.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    crypto_generichash(
                        out.sodiumPointer, out.count,
                        input.sodiumPointer, UInt64(input.count),
                        keyBytes.sodiumPointer, keyBytes.count)
                }
            }
        }
        guard status == 0 else { throw .param("a keyed hash cannot produce \(outputByteCount) bytes") }
        return output
    }

    /// Whether two hashes are equal, compared in constant time (`sodium_memcmp`).
    package static func equal(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { a in
            right.withUnsafeBytes { b in
                a.count == 0 || sodium_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
            }
        }
    }

    /// Derives a new key: BLAKE2b keyed by `key` over `context` (a label), the public `input` and the secret
    /// `secretInput`, computed in locked memory and written straight into locked memory.
    package static func deriveKey(
        from key: SecretKey, context: String, input: [UInt8] = [], secretInput: SecretKey? = nil
    ) throws(EngineError) -> SecretKey {
        let label = Array(context.utf8) + [0] + input
        let message = try SecureBytes(count: label.count + (secretInput?.storage.count ?? 0))
        message.withUnsafeMutableBytes { buffer in
            buffer.copyBytes(from: label)
            secretInput?.withUnsafeBytes { secret in
                UnsafeMutableRawBufferPointer(rebasing: buffer[label.count...]).copyBytes(from: secret)
            }
        }
        let derived = try SecretKey.zeroed()
        let status = derived.storage.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    crypto_generichash(
                        out.sodiumPointer, out.count, input.sodiumPointer, UInt64(input.count), keyBytes.sodiumPointer,
                        keyBytes.count)
                }
            }
        }
        guard status == 0 else { throw .internalError("BLAKE2b could not derive a key") }
        return derived
    }
}
