import CSodium
import Foundation

/// An Ed25519 key pair: a sync device signs every record it writes, so other devices know who wrote it and that
/// nothing changed it on the way.
package struct SigningKeyPair: Sendable {
    /// The size of a signature in bytes.
    package static let signatureByteCount = Int(crypto_sign_BYTES)

    /// The public key (32 bytes).
    package let publicKey: Data
    /// The 32-byte seed the pair derives from, in locked memory.
    package let seed: SecretKey
    /// libsodium's 64-byte secret key (seed ‖ public key), in locked memory.
    private let secretKey: SecureBytes

    /// Generates a new key pair.
    package static func generate() throws(EngineError) -> SigningKeyPair {
        try SigningKeyPair(seed: try SecretKey.random())
    }

    /// Rebuilds a key pair from its seed.
    package init(seed: SecretKey) throws(EngineError) {
        try Sodium.ensureInitialized()
        let secretKey = try SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES))
        var publicKey = Data(count: Int(crypto_sign_PUBLICKEYBYTES))
        let status = publicKey.withUnsafeMutableBytes { out in
            secretKey.withUnsafeMutableBytes { secret in
                seed.withUnsafeBytes { seedBytes in
                    crypto_sign_seed_keypair(out.sodiumPointer, secret.sodiumPointer, seedBytes.sodiumPointer)
                }
            }
        }
        guard status == 0 else { throw .internalError("Ed25519 could not derive a key pair from its seed") }
        self.seed = seed
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The detached signature of `message`.
    package func sign(_ message: some ContiguousBytes) -> Data {
        var signature = Data(count: Self.signatureByteCount)
        signature.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { input in
                secretKey.withUnsafeBytes { secret in
                    _ = crypto_sign_detached(
                        out.sodiumPointer, nil, input.sodiumPointer, UInt64(input.count), secret.sodiumPointer)
                }
            }
        }
        return signature
    }

    /// Whether `signature` is `publicKey`'s signature of `message`.
    package static func isValid(
        _ signature: some ContiguousBytes, of message: some ContiguousBytes, publicKey: Data
    ) -> Bool {
        guard (try? Sodium.ensureInitialized()) != nil, publicKey.count == Int(crypto_sign_PUBLICKEYBYTES) else {
            return false
        }
        return signature.withUnsafeBytes { signatureBytes in
            guard signatureBytes.count == signatureByteCount else { return false }
            return message.withUnsafeBytes { input in
                publicKey.withUnsafeBytes { key in
                    crypto_sign_verify_detached(
                        signatureBytes.sodiumPointer, input.sodiumPointer, UInt64(input.count), key.sodiumPointer)
                        == 0
                }
            }
        }
    }
}
