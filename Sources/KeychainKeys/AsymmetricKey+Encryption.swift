import CLibCrypto
import Foundation
import KeychainCore

extension AsymmetricKey {
    /// Encrypts one block of `plaintext` with this RSA key (its public half).
    package func encrypt(_ plaintext: Data, padding: EncryptionPadding) throws(EngineError) -> Data {
        try checkRSA("encrypt")
        let most = padding.maximumPlaintext(blockSize: blockSize)
        guard padding == .raw ? plaintext.count == blockSize : plaintext.count <= most else {
            throw EngineError(
                .param,
                padding == .raw
                    ? "raw RSA encrypts one \(blockSize)-byte block, not \(plaintext.count) bytes"
                    : "\(plaintext.count) bytes do not fit one block: \(padding) holds at most \(most)")
        }
        return try withOperation("encrypt", EVP_PKEY_encrypt_init) { (context) throws(EngineError) -> Data in
            try configure(context, padding)
            var length = blockSize
            var output = [UInt8](repeating: 0, count: length)
            try OpenSSLFailure.check(
                plaintext.withUnsafeBytes { EVP_PKEY_encrypt(context, &output, &length, $0.baseAddress, $0.count) },
                .param, "encrypt \(plaintext.count) bytes")
            return Data(output.prefix(length))
        }
    }

    /// Decrypts one block with this RSA private key. A ciphertext that does not decrypt (another key's, changed,
    /// of the wrong length) is errSecParam; the caller wipes the plaintext when done.
    package func decrypt(_ ciphertext: Data, padding: EncryptionPadding) throws(EngineError) -> Data {
        try checkRSA("decrypt")
        guard isPrivate else { throw EngineError(.param, "a public key cannot decrypt") }
        guard ciphertext.count == blockSize else {
            throw EngineError(.param, "an RSA ciphertext is one \(blockSize)-byte block, not \(ciphertext.count) bytes")
        }
        return try withOperation("decrypt", EVP_PKEY_decrypt_init) { (context) throws(EngineError) -> Data in
            try configure(context, padding)
            var length = blockSize
            var output = [UInt8](repeating: 0, count: length)
            defer { output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
            let done = ciphertext.withUnsafeBytes {
                EVP_PKEY_decrypt(context, &output, &length, $0.baseAddress, $0.count)
            }
            guard done == 1 else {
                ERR_clear_error()
                throw EngineError(.param, "the ciphertext does not decrypt with this key and \(padding)")
            }
            return Data(output.prefix(length))
        }
    }

    /// The ECDH shared secret (the x coordinate) of this private key and `peer`'s public key, on the same curve;
    /// `cofactor`: cofactor Diffie-Hellman (the same on the NIST curves, whose cofactor is 1).
    package func sharedSecret(with peer: AsymmetricKey, cofactor: Bool) throws(EngineError) -> Data {
        guard case .ec(let curve) = kind, isPrivate else {
            throw EngineError(.param, "a key exchange needs an EC private key")
        }
        guard peer.kind == kind else {
            throw EngineError(.param, "the other key is not an EC key on \(curve.name)")
        }
        return try withOperation("agree", EVP_PKEY_derive_init) { (context) throws(EngineError) -> Data in
            if cofactor {
                try OpenSSLFailure.check(EVP_PKEY_CTX_set_ecdh_cofactor_mode(context, 1), "choose cofactor ECDH")
            }
            try OpenSSLFailure.check(EVP_PKEY_derive_set_peer(context, peer.handle), .param, "take the other key")
            var length = 0
            try OpenSSLFailure.check(EVP_PKEY_derive(context, nil, &length), "size the shared secret")
            var secret = [UInt8](repeating: 0, count: length)
            defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
            try OpenSSLFailure.check(EVP_PKEY_derive(context, &secret, &length), "agree on a secret")
            return Data(secret.prefix(length))
        }
    }

    private func checkRSA(_ what: String) throws(EngineError) {
        guard kind == .rsa else { throw EngineError(.param, "an EC key cannot \(what) with RSA padding") }
    }

    private func configure(_ context: OpaquePointer, _ padding: EncryptionPadding) throws(EngineError) {
        switch padding {
        case .raw:
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING), "choose no padding")
        case .pkcs1:
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "choose PKCS#1")
        case .oaep(let digest):
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING), "choose OAEP")
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_oaep_md(context, digest.function), "choose \(digest)")
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_mgf1_md(context, digest.function), "choose MGF1")
        }
    }
}

/// ANSI X9.63's key derivation (the KDF of Apple's `ecdhKeyExchange…X963SHA…` algorithms): `size` bytes of
/// `hash(secret || counter || sharedInfo)` for counter 1, 2, …
package enum X963KDF {
    /// The derived key.
    package static func derive(
        _ secret: Data, sharedInfo: Data, size: Int, digest: Digest
    ) throws(EngineError) -> Data {
        guard size > 0, size <= digest.length * 0xFFFF else {
            throw EngineError(.param, "an X9.63 derived key of \(size) bytes")
        }
        var output = Data()
        var counter: UInt32 = 1
        while output.count < size {
            var block = secret
            withUnsafeBytes(of: counter.bigEndian) { block.append(contentsOf: $0) }
            block.append(sharedInfo)
            output.append(try digest.hash(block))
            counter += 1
        }
        return output.prefix(size)
    }
}
