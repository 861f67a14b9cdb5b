import CSodium
import Foundation

/// Authenticated encryption with associated data: XChaCha20-Poly1305 (IETF) with a random 192-bit nonce.
///
/// A sealed box is `nonce ‖ ciphertext ‖ tag`. The caller never picks a nonce. Opening a box whose bytes, key or
/// associated data differ from those it was sealed with fails with ``EngineError/Code/decode``: never garbage.
package enum AEAD {
    /// The nonce size in bytes.
    package static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// The authentication tag size in bytes.
    package static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// How many bytes a sealed box adds to its plaintext.
    package static var overhead: Int { nonceByteCount + tagByteCount }

    /// Seals `plaintext` under `key`, binding `associatedData`.
    package static func seal(
        _ plaintext: some ContiguousBytes, key: SecretKey, associatedData: some ContiguousBytes
    ) throws(EngineError) -> Data {
        try Sodium.ensureInitialized()
        return plaintext.withUnsafeBytes { message in
            associatedData.withUnsafeBytes { additional in
                key.withUnsafeBytes { keyBytes in
                    sealRaw(message, key: keyBytes, associatedData: additional)
                }
            }
        }
    }

    /// Seals a key under a key-encryption key (the bytes of `key` are read in place, never copied out of locked
    /// memory).
    package static func seal(
        key: SecretKey, under wrappingKey: SecretKey, associatedData: some ContiguousBytes
    ) throws(EngineError) -> Data {
        try key.withUnsafeBytes { (bytes) throws(EngineError) -> Data in
            try seal(bytes, key: wrappingKey, associatedData: associatedData)
        }
    }

    /// Opens a box sealed by ``seal(_:key:associatedData:)``.
    package static func open(
        _ sealed: some ContiguousBytes, key: SecretKey, associatedData: some ContiguousBytes
    ) throws(EngineError) -> Data {
        var plaintext: [UInt8] = []
        try open(sealed, key: key, associatedData: associatedData, into: &plaintext)
        return Data(plaintext)
    }

    /// Opens a box into `plaintext`, replacing its contents (a caller that reuses one buffer allocates nothing).
    package static func open(
        _ sealed: some ContiguousBytes, key: SecretKey, associatedData: some ContiguousBytes,
        into plaintext: inout [UInt8]
    ) throws(EngineError) {
        try Sodium.ensureInitialized()
        let ok = sealed.withUnsafeBytes { (box: UnsafeRawBufferPointer) -> Bool in
            guard box.count >= overhead else { return false }
            let count = box.count - overhead
            if plaintext.count > count {
                plaintext.removeLast(plaintext.count - count)
            } else if plaintext.count < count {
                // An array, not `repeatElement`: appended whole, where a debug build would add a 16 MiB secret's
                // zeroes one generic element at a time (seconds, past a keychaind client's timeout).
                plaintext.append(contentsOf: [UInt8](repeating: 0, count: count - plaintext.count))
            }
            return plaintext.withUnsafeMutableBytes { output in
                associatedData.withUnsafeBytes { additional in
                    key.withUnsafeBytes { keyBytes in
                        openRaw(box, into: output, key: keyBytes, associatedData: additional)
                    }
                }
            }
        }
        guard ok else { throw .decode("a sealed value failed authentication") }
    }

    /// Opens a box that holds a key, writing the key straight into `destination`'s locked memory.
    package static func open(
        key sealed: some ContiguousBytes, under wrappingKey: SecretKey, associatedData: some ContiguousBytes,
        into destination: SecretKey
    ) throws(EngineError) {
        try Sodium.ensureInitialized()
        let ok = sealed.withUnsafeBytes { box in
            box.count == overhead + SecretKey.byteCount
                && destination.storage.withUnsafeMutableBytes { output in
                    associatedData.withUnsafeBytes { additional in
                        wrappingKey.withUnsafeBytes { keyBytes in
                            openRaw(box, into: output, key: keyBytes, associatedData: additional)
                        }
                    }
                }
        }
        guard ok else {
            destination.storage.zero()
            throw .decode("a wrapped key failed authentication")
        }
    }

    /// Opens a box that holds a key into new locked memory.
    package static func open(
        key sealed: some ContiguousBytes, under wrappingKey: SecretKey, associatedData: some ContiguousBytes
    ) throws(EngineError) -> SecretKey {
        let key = try SecretKey.zeroed()
        try open(key: sealed, under: wrappingKey, associatedData: associatedData, into: key)
        return key
    }

    private static func sealRaw(
        _ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) -> Data {
        var box = Data(count: message.count + overhead)
        box.withUnsafeMutableBytes { output in
            let out = output.sodiumPointer
            randombytes_buf(out, nonceByteCount)
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                out + nonceByteCount, nil,
                message.sodiumPointer, UInt64(message.count),
                associatedData.sodiumPointer, UInt64(associatedData.count),
                nil, out, key.sodiumPointer)
        }
        return box
    }

    private static func openRaw(
        _ box: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, key: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer
    ) -> Bool {
        guard box.count >= overhead else { return false }
        let input = box.sodiumPointer
        // libsodium verifies the tag before it writes anything to the output.
        return crypto_aead_xchacha20poly1305_ietf_decrypt(
            output.sodiumPointer, nil, nil,
            input + nonceByteCount, UInt64(box.count - nonceByteCount),
            associatedData.sodiumPointer, UInt64(associatedData.count),
            input, key.sodiumPointer) == 0
    }
}
