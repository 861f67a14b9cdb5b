import CLibCrypto
import Foundation
import KeychainCore

/// Apple's hybrid encryption algorithms, as its Security framework defines them (SecKeyAdaptors.m), so that a
/// ciphertext made on iOS opens here and the other way round:
///
/// - **ECIES** (`algid:encrypt:ECIES:ECDH[C]:KDFX963:SHAn:AESGCM[-KDFIV]`): an ephemeral key on the recipient's
///   curve, ECDH with the recipient's public key, the X9.63 KDF over the shared secret with the ephemeral public
///   key as shared information, giving an AES key (128 bits for curves of 256 bits or less, 256 above) and, for
///   the variable-IV forms, a 16-byte IV after it (else 16 zero bytes); AES-GCM with a 16-byte tag. The packet is
///   the ephemeral public key (ANSI X9.63), the ciphertext and the tag.
/// - **RSA OAEP with AES-GCM** (`algid:encrypt:RSA:OAEP:SHAn:AESGCM`): a random AES key (128 bits, 256 for RSA keys
///   of 4096 bits or more) wrapped with RSA OAEP, the message sealed with AES-GCM under it with a zero 16-byte IV
///   and the RSA public key (PKCS#1) as additional data. The packet is the wrapped key, the ciphertext and the tag.
enum HybridEncryption {
    static let ivByteCount = 16

    /// ECIES encryption to `recipient` (an EC public key, or the public half of a private one).
    static func eciesSeal(
        _ plaintext: Data, to recipient: AsymmetricKey, cofactor: Bool, kdf: Digest, variableIV: Bool
    ) throws(EngineError) -> Data {
        guard case .ec(let curve) = recipient.kind else { throw EngineError(.param, "ECIES needs an EC key") }
        let ephemeral = try AsymmetricKey.generateEC(curve)
        let ephemeralPublic = try ephemeral.publicRepresentation()
        let recipientPublic = try recipient.isPrivate ? recipient.publicKey() : recipient
        let secret = try ephemeral.sharedSecret(with: recipientPublic, cofactor: cofactor)
        let (key, iv) = try eciesKey(
            secret, ephemeralPublic: ephemeralPublic, curve: curve, kdf: kdf, variableIV: variableIV)
        return ephemeralPublic + (try AESCipher.gcmSeal(plaintext, key: key, iv: iv, additionalData: Data()))
    }

    /// ECIES decryption with an EC private key.
    static func eciesOpen(
        _ packet: Data, with key: AsymmetricKey, cofactor: Bool, kdf: Digest, variableIV: Bool
    ) throws(EngineError) -> Data {
        guard case .ec(let curve) = key.kind, key.isPrivate else {
            throw EngineError(.param, "ECIES decryption needs an EC private key")
        }
        return try eciesOpen(packet, curve: curve, kdf: kdf, variableIV: variableIV) {
            (ephemeralPublic) throws(EngineError) -> Data in
            let ephemeral = try AsymmetricKey.importing(ephemeralPublic, kind: key.kind, isPrivate: false)
            return try key.sharedSecret(with: ephemeral, cofactor: cofactor)
        }
    }

    /// ECIES decryption on `curve` whose ECDH step is `agree`, given the ephemeral public key's external
    /// representation: a key held elsewhere (a Secure Enclave key, in the TPM) opens packets this way.
    static func eciesOpen(
        _ packet: Data, curve: AsymmetricKey.Curve, kdf: Digest, variableIV: Bool,
        agree: (Data) throws(EngineError) -> Data
    ) throws(EngineError) -> Data {
        let pointLength = 1 + 2 * curve.fieldBytes
        guard packet.count >= pointLength + AESCipher.tagByteCount else {
            throw EngineError(.param, "\(packet.count) bytes are too few for an ECIES packet on \(curve.name)")
        }
        let ephemeralPublic = Data(packet.prefix(pointLength))
        let secret = try agree(ephemeralPublic)
        let (aesKey, iv) = try eciesKey(
            secret, ephemeralPublic: ephemeralPublic, curve: curve, kdf: kdf, variableIV: variableIV)
        return try AESCipher.gcmOpen(Data(packet.dropFirst(pointLength)), key: aesKey, iv: iv, additionalData: Data())
    }

    private static func eciesKey(
        _ secret: Data, ephemeralPublic: Data, curve: AsymmetricKey.Curve, kdf: Digest, variableIV: Bool
    ) throws(EngineError) -> (key: Data, iv: Data) {
        let keyByteCount = curve.fieldBytes * 8 > 256 ? 32 : 16
        let derived = try X963KDF.derive(
            secret, sharedInfo: ephemeralPublic, size: keyByteCount + (variableIV ? ivByteCount : 0), digest: kdf)
        let iv = variableIV ? Data(derived.dropFirst(keyByteCount)) : Data(count: ivByteCount)
        return (Data(derived.prefix(keyByteCount)), iv)
    }

    /// RSA OAEP with AES-GCM encryption to an RSA key.
    static func rsaSeal(_ plaintext: Data, to recipient: AsymmetricKey, oaep: Digest) throws(EngineError) -> Data {
        guard recipient.kind == .rsa else { throw EngineError(.param, "RSA AES-GCM needs an RSA key") }
        let sessionKey = Data(try RandomBytes.make(count: recipient.sizeInBits >= 4096 ? 32 : 16))
        let wrapped = try recipient.encrypt(sessionKey, padding: .oaep(oaep))
        let publicBytes = try recipient.publicRepresentation()
        return wrapped
            + (try AESCipher.gcmSeal(
                plaintext, key: sessionKey, iv: Data(count: ivByteCount), additionalData: publicBytes))
    }

    /// RSA OAEP with AES-GCM decryption with an RSA private key.
    static func rsaOpen(_ packet: Data, with key: AsymmetricKey, oaep: Digest) throws(EngineError) -> Data {
        guard key.kind == .rsa, key.isPrivate else { throw EngineError(.param, "RSA AES-GCM needs an RSA private key") }
        guard packet.count >= key.blockSize + AESCipher.tagByteCount else {
            throw EngineError(.param, "\(packet.count) bytes are too few for an RSA AES-GCM packet")
        }
        let sessionKey = try key.decrypt(Data(packet.prefix(key.blockSize)), padding: .oaep(oaep))
        guard sessionKey.count == (key.sizeInBits >= 4096 ? 32 : 16) else {
            throw EngineError(.param, "the wrapped session key has an unexpected size")
        }
        return try AESCipher.gcmOpen(
            Data(packet.dropFirst(key.blockSize)), key: sessionKey, iv: Data(count: ivByteCount),
            additionalData: try key.publicRepresentation())
    }
}
