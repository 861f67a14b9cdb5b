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
    static let tagByteCount = 16
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
        return ephemeralPublic + (try AESGCM.seal(plaintext, key: key, iv: iv, additionalData: Data()))
    }

    /// ECIES decryption with an EC private key.
    static func eciesOpen(
        _ packet: Data, with key: AsymmetricKey, cofactor: Bool, kdf: Digest, variableIV: Bool
    ) throws(EngineError) -> Data {
        guard case .ec(let curve) = key.kind, key.isPrivate else {
            throw EngineError(.param, "ECIES decryption needs an EC private key")
        }
        let pointLength = 1 + 2 * curve.fieldBytes
        guard packet.count >= pointLength + tagByteCount else {
            throw EngineError(.param, "\(packet.count) bytes are too few for an ECIES packet on \(curve.name)")
        }
        let ephemeralPublic = Data(packet.prefix(pointLength))
        let ephemeral = try AsymmetricKey.importing(ephemeralPublic, kind: key.kind, isPrivate: false)
        let secret = try key.sharedSecret(with: ephemeral, cofactor: cofactor)
        let (aesKey, iv) = try eciesKey(
            secret, ephemeralPublic: ephemeralPublic, curve: curve, kdf: kdf, variableIV: variableIV)
        return try AESGCM.open(Data(packet.dropFirst(pointLength)), key: aesKey, iv: iv, additionalData: Data())
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
            + (try AESGCM.seal(plaintext, key: sessionKey, iv: Data(count: ivByteCount), additionalData: publicBytes))
    }

    /// RSA OAEP with AES-GCM decryption with an RSA private key.
    static func rsaOpen(_ packet: Data, with key: AsymmetricKey, oaep: Digest) throws(EngineError) -> Data {
        guard key.kind == .rsa, key.isPrivate else { throw EngineError(.param, "RSA AES-GCM needs an RSA private key") }
        guard packet.count >= key.blockSize + tagByteCount else {
            throw EngineError(.param, "\(packet.count) bytes are too few for an RSA AES-GCM packet")
        }
        let sessionKey = try key.decrypt(Data(packet.prefix(key.blockSize)), padding: .oaep(oaep))
        guard sessionKey.count == (key.sizeInBits >= 4096 ? 32 : 16) else {
            throw EngineError(.param, "the wrapped session key has an unexpected size")
        }
        return try AESGCM.open(
            Data(packet.dropFirst(key.blockSize)), key: sessionKey, iv: Data(count: ivByteCount),
            additionalData: try key.publicRepresentation())
    }
}

/// AES-GCM on libcrypto with a 16-byte IV and a 16-byte tag (what Apple's hybrid algorithms use).
enum AESGCM {
    /// The ciphertext with its tag after it.
    static func seal(_ plaintext: Data, key: Data, iv: Data, additionalData: Data) throws(EngineError) -> Data {
        try run(encrypting: true, plaintext, key: key, iv: iv, additionalData: additionalData, tag: nil)
    }

    /// The plaintext of a ciphertext with its tag after it; a changed byte is errSecParam.
    static func open(_ sealed: Data, key: Data, iv: Data, additionalData: Data) throws(EngineError) -> Data {
        guard sealed.count >= HybridEncryption.tagByteCount else {
            throw EngineError(.param, "an AES-GCM ciphertext is shorter than its tag")
        }
        return try run(
            encrypting: false, Data(sealed.dropLast(HybridEncryption.tagByteCount)), key: key, iv: iv,
            additionalData: additionalData, tag: Data(sealed.suffix(HybridEncryption.tagByteCount)))
    }

    private static func run(
        encrypting: Bool, _ input: Data, key: Data, iv: Data, additionalData: Data, tag: Data?
    ) throws(EngineError) -> Data {
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLFailure.error(.allocate, "start AES-GCM") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher = key.count == 32 ? EVP_aes_256_gcm() : EVP_aes_128_gcm()
        let initialize = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        var ok = initialize(context, cipher, nil, nil, nil) == 1
        ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1
        ok =
            ok
            && key.withUnsafeBytes { keyBytes in
                iv.withUnsafeBytes { ivBytes in
                    initialize(
                        context, nil, nil, keyBytes.bindMemory(to: UInt8.self).baseAddress,
                        ivBytes.bindMemory(to: UInt8.self).baseAddress) == 1
                }
            }
        guard ok else { throw OpenSSLFailure.error(.internalComponent, "set up AES-GCM") }
        var length: Int32 = 0
        if !additionalData.isEmpty {
            let done = additionalData.withUnsafeBytes { bytes in
                encrypting
                    ? EVP_EncryptUpdate(
                        context, nil, &length, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count))
                    : EVP_DecryptUpdate(
                        context, nil, &length, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count))
            }
            guard done == 1 else { throw OpenSSLFailure.error(.internalComponent, "authenticate AES-GCM's data") }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        let updated = input.withUnsafeBytes { bytes in
            encrypting
                ? EVP_EncryptUpdate(
                    context, &output, &written, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count))
                : EVP_DecryptUpdate(
                    context, &output, &written, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count))
        }
        guard updated == 1 else { throw OpenSSLFailure.error(.internalComponent, "run AES-GCM") }
        if let tag {
            var expected = [UInt8](tag)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(expected.count), &expected) == 1 else {
                throw OpenSSLFailure.error(.internalComponent, "set AES-GCM's tag")
            }
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            encrypting
                ? EVP_EncryptFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &final)
                : EVP_DecryptFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &final)
        }
        guard finished == 1 else {
            ERR_clear_error()
            throw EngineError(
                .param, "the ciphertext does not authenticate (AES-GCM): it was changed or is another key's")
        }
        var result = Data(output.prefix(Int(written + final)))
        if encrypting {
            var produced = [UInt8](repeating: 0, count: HybridEncryption.tagByteCount)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(produced.count), &produced) == 1 else {
                throw OpenSSLFailure.error(.internalComponent, "read AES-GCM's tag")
            }
            result.append(contentsOf: produced)
        }
        return result
    }
}
