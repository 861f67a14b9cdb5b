import CSodium
import Foundation

/// An X25519 key pair: the public half seals keys that only the private half can open.
///
/// Protection class B uses one: a file key is sealed to the class public key with an ephemeral key pair, so a file
/// can be created while the device is locked, yet read only once the private key is loaded again.
package struct KeyAgreementKeyPair: Sendable {
    /// The public key (32 bytes).
    package let publicKey: Data
    /// The private key, in locked memory.
    package let privateKey: SecretKey

    /// Generates a new key pair.
    package static func generate() throws(EngineError) -> KeyAgreementKeyPair {
        let privateKey = try SecretKey.random()
        return KeyAgreementKeyPair(privateKey: privateKey, publicKey: try publicKey(of: privateKey))
    }

    /// Rebuilds a key pair from its private key.
    package init(privateKey: SecretKey) throws(EngineError) {
        self.init(privateKey: privateKey, publicKey: try Self.publicKey(of: privateKey))
    }

    private init(privateKey: SecretKey, publicKey: Data) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    private static func publicKey(of privateKey: SecretKey) throws(EngineError) -> Data {
        var publicKey = Data(count: Int(crypto_scalarmult_BYTES))
        let status = publicKey.withUnsafeMutableBytes { out in
            privateKey.withUnsafeBytes { secret in
                crypto_scalarmult_base(
                    out.sodiumPointer,
                    secret.sodiumPointer)
            }
        }
        guard status == 0 else { throw .internalError("X25519 could not compute a public key") }
        return publicKey
    }
}

/// Seals a key to an X25519 public key: `ephemeral public key ‖ AEAD box`, the box keyed by BLAKE2b of the
/// shared secret and both public keys.
package enum PublicKeySeal {
    /// The size of a sealed key in bytes.
    package static let sealedByteCount = Int(crypto_scalarmult_BYTES) + AEAD.overhead + SecretKey.byteCount

    /// Seals `key` so that only the holder of the private key matching `recipient` can open it.
    package static func seal(
        key: SecretKey, to recipient: Data, associatedData: some ContiguousBytes
    ) throws(EngineError) -> Data {
        let ephemeral = try KeyAgreementKeyPair.generate()
        let wrappingKey = try sharedKey(
            privateKey: ephemeral.privateKey, peer: recipient, ephemeral: ephemeral.publicKey, recipient: recipient)
        return ephemeral.publicKey + (try AEAD.seal(key: key, under: wrappingKey, associatedData: associatedData))
    }

    /// Opens a key sealed by ``seal(key:to:associatedData:)`` with the recipient's key pair.
    package static func open(
        _ sealed: Data, with recipient: KeyAgreementKeyPair, associatedData: some ContiguousBytes
    ) throws(EngineError) -> SecretKey {
        let publicCount = Int(crypto_scalarmult_BYTES)
        guard sealed.count == sealedByteCount else { throw .decode("a sealed file key has the wrong length") }
        let ephemeral = Data(sealed.prefix(publicCount))
        let wrappingKey = try sharedKey(
            privateKey: recipient.privateKey, peer: ephemeral, ephemeral: ephemeral, recipient: recipient.publicKey)
        return try AEAD.open(
            key: Data(sealed.dropFirst(publicCount)), under: wrappingKey, associatedData: associatedData)
    }

    private static func sharedKey(
        privateKey: SecretKey, peer: Data, ephemeral: Data, recipient: Data
    ) throws(EngineError) -> SecretKey {
        guard peer.count == Int(crypto_scalarmult_BYTES) else { throw .decode("an X25519 public key is damaged") }
        let shared = try SecretKey.zeroed()
        let status = shared.storage.withUnsafeMutableBytes { out in
            privateKey.withUnsafeBytes { secret in
                peer.withUnsafeBytes { point in
                    crypto_scalarmult(
                        out.sodiumPointer,
                        secret.sodiumPointer,
                        point.sodiumPointer)
                }
            }
        }
        guard status == 0 else { throw .decode("an X25519 public key is invalid") }
        return try KeyedHash.deriveKey(
            from: shared, context: "swift-keychain x25519 seal v1", input: Array(ephemeral + recipient))
    }
}
