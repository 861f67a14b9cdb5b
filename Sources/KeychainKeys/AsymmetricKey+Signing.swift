import CLibCrypto
import Foundation
import KeychainCore

extension AsymmetricKey {
    /// Signs `input` (a message, or a digest, as `scheme` says) with this private key.
    package func sign(_ input: Data, scheme: SignatureScheme) throws(EngineError) -> Data {
        guard isPrivate else { throw EngineError(.param, "a public key cannot sign") }
        let digest = try preparedInput(input, scheme: scheme)
        let der = try withOperation("sign", EVP_PKEY_sign_init) { (context) throws(EngineError) -> Data in
            try configure(context, for: scheme)
            var length = 0
            try OpenSSLFailure.check(
                digest.withUnsafeBytes { EVP_PKEY_sign(context, nil, &length, $0.baseAddress, $0.count) }, .param,
                "size a signature")
            var signature = [UInt8](repeating: 0, count: length)
            try OpenSSLFailure.check(
                digest.withUnsafeBytes { EVP_PKEY_sign(context, &signature, &length, $0.baseAddress, $0.count) },
                .param, "sign \(digest.count) bytes")
            return Data(signature.prefix(length))
        }
        guard case .ecdsaRFC4754 = scheme, case .ec(let curve) = kind else { return der }
        return try ECDSASignature.raw(fromDER: der, fieldBytes: curve.fieldBytes)
    }

    /// Whether `signature` is this key's (or its private half's) signature of `input` under `scheme`. A signature
    /// that does not verify is `false`; an input the scheme cannot take (a digest of the wrong length) is
    /// errSecParam.
    package func verify(_ signature: Data, of input: Data, scheme: SignatureScheme) throws(EngineError) -> Bool {
        let digest = try preparedInput(input, scheme: scheme)
        var der = signature
        if case .ecdsaRFC4754 = scheme, case .ec(let curve) = kind {
            guard let converted = ECDSASignature.der(fromRaw: signature, fieldBytes: curve.fieldBytes) else {
                return false
            }
            der = converted
        }
        return try withOperation("verify", EVP_PKEY_verify_init) { (context) throws(EngineError) -> Bool in
            try configure(context, for: scheme)
            let result = der.withUnsafeBytes { signatureBytes in
                digest.withUnsafeBytes { digestBytes in
                    EVP_PKEY_verify(
                        context, signatureBytes.baseAddress, signatureBytes.count, digestBytes.baseAddress,
                        digestBytes.count)
                }
            }
            // A signature that does not verify queues its reasons; they are not this call's failure.
            ERR_clear_error()
            return result == 1
        }
    }

    /// The bytes the key operation signs: the message's digest, or the digest given (checked for its length), or
    /// the input as it is.
    private func preparedInput(_ input: Data, scheme: SignatureScheme) throws(EngineError) -> Data {
        guard scheme.isRSA == (kind == .rsa) else {
            throw EngineError(.param, "\(scheme) is not an algorithm for \(kind == .rsa ? "an RSA" : "an EC") key")
        }
        switch scheme {
        case .rsaRaw:
            guard input.count == blockSize else {
                throw EngineError(.param, "a raw RSA signature signs one \(blockSize)-byte block, not \(input.count)")
            }
            return input
        case .rsaPKCS1v15Raw:
            guard input.count <= blockSize - 11 else {
                throw EngineError(.param, "\(input.count) bytes do not fit PKCS#1 padding in \(blockSize)-byte blocks")
            }
            return input
        case .rsaPKCS1v15(let digest, let isDigest), .rsaPSS(let digest, let isDigest):
            return try Self.digestInput(input, digest, isDigest: isDigest)
        case .ecdsaX962(let digest, let isDigest), .ecdsaRFC4754(let digest, let isDigest):
            guard let digest else { return input }
            return try Self.digestInput(input, digest, isDigest: isDigest)
        }
    }

    private static func digestInput(_ input: Data, _ digest: Digest, isDigest: Bool) throws(EngineError) -> Data {
        guard isDigest else { return try digest.hash(input) }
        guard input.count == digest.length else {
            throw EngineError(.param, "a \(digest) digest is \(digest.length) bytes, not \(input.count)")
        }
        return input
    }

    /// Sets the padding and hash a signature scheme uses on an operation's context.
    private func configure(_ context: OpaquePointer, for scheme: SignatureScheme) throws(EngineError) {
        switch scheme {
        case .rsaRaw:
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING), "choose no padding")
        case .rsaPKCS1v15Raw:
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "choose PKCS#1")
        case .rsaPKCS1v15(let digest, _):
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "choose PKCS#1")
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_signature_md(context, digest.function), "choose \(digest)")
        case .rsaPSS(let digest, _):
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING), "choose PSS")
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_signature_md(context, digest.function), "choose \(digest)")
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_rsa_mgf1_md(context, digest.function), "choose MGF1")
            try OpenSSLFailure.check(
                EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(digest.length)), "choose the PSS salt length")
        case .ecdsaX962, .ecdsaRFC4754:
            break  // ECDSA signs the bytes given; the digest was made (or checked) before.
        }
    }

    /// Runs one key operation on a fresh context of this key, started with `start` (`EVP_PKEY_sign_init` …).
    func withOperation<Result>(
        _ what: String, _ start: (OpaquePointer?) -> Int32, _ body: (OpaquePointer) throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, handle, nil) else {
            throw OpenSSLFailure.error(.internalComponent, "start to \(what)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLFailure.check(start(context), .param, "start to \(what) with this key")
        return try body(context)
    }
}
