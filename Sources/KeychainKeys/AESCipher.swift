import CLibCrypto
import Foundation
import KeychainCore

/// AES on libcrypto, the two modes the project's protocols name: GCM with a 16-byte IV and a 16-byte tag after the
/// ciphertext (Apple's hybrid encryption, ``HybridEncryption``), and CBC with PKCS#7 padding (the Secret Service's
/// encrypted session). The key's length chooses AES-128 or AES-256.
package enum AESCipher {
    /// A GCM ciphertext with its tag after it.
    static func gcmSeal(_ plaintext: Data, key: Data, iv: Data, additionalData: Data) throws(EngineError) -> Data {
        try run(gcm: true, encrypting: true, plaintext, key: key, iv: iv, additionalData: additionalData, tag: nil)
    }

    /// The plaintext of a GCM ciphertext with its tag after it; a changed byte is errSecParam.
    static func gcmOpen(_ sealed: Data, key: Data, iv: Data, additionalData: Data) throws(EngineError) -> Data {
        guard sealed.count >= tagByteCount else {
            throw EngineError(.param, "an AES-GCM ciphertext is shorter than its tag")
        }
        return try run(
            gcm: true, encrypting: false, Data(sealed.dropLast(tagByteCount)), key: key, iv: iv,
            additionalData: additionalData, tag: Data(sealed.suffix(tagByteCount)))
    }

    /// CBC with PKCS#7 padding, encrypting or decrypting; a ciphertext whose padding is wrong (another key's, or
    /// changed) is errSecParam.
    package static func cbc(_ input: Data, key: Data, iv: Data, encrypting: Bool) throws(EngineError) -> Data {
        try run(gcm: false, encrypting: encrypting, input, key: key, iv: iv, additionalData: Data(), tag: nil)
    }

    static let tagByteCount = 16

    private static func run(
        gcm: Bool, encrypting: Bool, _ input: Data, key: Data, iv: Data, additionalData: Data, tag: Data?
    ) throws(EngineError) -> Data {
        let mode = gcm ? "AES-GCM" : "AES-CBC"
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLFailure.error(.allocate, "start \(mode)") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher =
            gcm
            ? (key.count == 32 ? EVP_aes_256_gcm() : EVP_aes_128_gcm())
            : (key.count == 32 ? EVP_aes_256_cbc() : EVP_aes_128_cbc())
        let direction: Int32 = encrypting ? 1 : 0
        var ok = EVP_CipherInit_ex(context, cipher, nil, nil, nil, direction) == 1
        if gcm { ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1 }
        ok =
            ok
            && key.withUnsafeBytes { keyBytes in
                iv.withUnsafeBytes { ivBytes in
                    EVP_CipherInit_ex(
                        context, nil, nil, keyBytes.bindMemory(to: UInt8.self).baseAddress,
                        ivBytes.bindMemory(to: UInt8.self).baseAddress, direction) == 1
                }
            }
        guard ok else { throw OpenSSLFailure.error(.internalComponent, "set up \(mode)") }
        var length: Int32 = 0
        if !additionalData.isEmpty {
            let done = additionalData.withUnsafeBytes { bytes in
                EVP_CipherUpdate(
                    context, nil, &length, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count))
            }
            guard done == 1 else { throw OpenSSLFailure.error(.internalComponent, "authenticate \(mode)'s data") }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        defer { OPENSSL_cleanse(&output, output.count) }
        var written: Int32 = 0
        let updated = input.withUnsafeBytes { bytes in
            EVP_CipherUpdate(
                context, &output, &written, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count))
        }
        guard updated == 1 else { throw OpenSSLFailure.error(.internalComponent, "run \(mode)") }
        if let tag {
            var expected = [UInt8](tag)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(expected.count), &expected) == 1 else {
                throw OpenSSLFailure.error(.internalComponent, "set \(mode)'s tag")
            }
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &final)
        }
        guard finished == 1 else {
            ERR_clear_error()
            throw EngineError(
                .param,
                gcm
                    ? "the ciphertext does not authenticate (AES-GCM): it was changed or is another key's"
                    : "the ciphertext does not decrypt (AES-CBC): its padding is wrong, so it was changed or is another key's"
            )
        }
        var result = Data(output.prefix(Int(written + final)))
        if gcm, encrypting {
            var produced = [UInt8](repeating: 0, count: tagByteCount)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(produced.count), &produced) == 1 else {
                throw OpenSSLFailure.error(.internalComponent, "read \(mode)'s tag")
            }
            result.append(contentsOf: produced)
        }
        return result
    }
}
