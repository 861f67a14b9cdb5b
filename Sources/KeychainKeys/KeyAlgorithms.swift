import CLibCrypto
import Foundation
import KeychainCore

/// The hash functions of Apple's key algorithms.
package enum Digest: Sendable, Hashable, CaseIterable {
    case sha1, sha224, sha256, sha384, sha512

    /// OpenSSL's description of the function (static, never freed).
    var function: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// The digest's length in bytes.
    package var length: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The digest of `data`.
    package func hash(_ data: Data) throws(EngineError) -> Data {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = data.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &output, &length, function, nil) }
        try OpenSSLFailure.check(done, "hash \(data.count) bytes")
        return Data(output.prefix(Int(length)))
    }
}

/// How a signature is made: Apple's `SecKeyAlgorithm` signature families, each over a message (hashed here) or a
/// digest the caller made (checked for its length).
package enum SignatureScheme: Sendable, Hashable {
    /// RSA with no padding: the input is one whole block, signed as a number (`rsaSignatureRaw`).
    case rsaRaw
    /// PKCS#1 v1.5 padding around the input as given, no DigestInfo (`rsaSignatureDigestPKCS1v15Raw`).
    case rsaPKCS1v15Raw
    /// PKCS#1 v1.5 with the digest's DigestInfo; `isDigest`: the input is the digest.
    case rsaPKCS1v15(Digest, isDigest: Bool)
    /// RSASSA-PSS, MGF1 with the same hash, a salt as long as the digest, as Apple's.
    case rsaPSS(Digest, isDigest: Bool)
    /// ECDSA with a DER (X9.62) signature; a `nil` digest signs the input as a digest of any length
    /// (`ecdsaSignatureDigestX962`).
    case ecdsaX962(Digest?, isDigest: Bool)
    /// ECDSA with the signature as `r || s`, each as long as the curve's field (RFC 4754).
    case ecdsaRFC4754(Digest?, isDigest: Bool)

    /// Whether the scheme is for RSA keys (otherwise EC).
    package var isRSA: Bool {
        switch self {
        case .rsaRaw, .rsaPKCS1v15Raw, .rsaPKCS1v15, .rsaPSS: true
        case .ecdsaX962, .ecdsaRFC4754: false
        }
    }
}

/// How RSA encrypts (Apple's `rsaEncryption…` algorithms without AES-GCM).
package enum EncryptionPadding: Sendable, Hashable {
    /// No padding: a whole block, below the modulus (`rsaEncryptionRaw`).
    case raw
    /// PKCS#1 v1.5 (`rsaEncryptionPKCS1`).
    case pkcs1
    /// OAEP with the digest, MGF1 with the same one, no label (`rsaEncryptionOAEPSHA…`).
    case oaep(Digest)

    /// The most plaintext bytes one block of `blockSize` holds.
    package func maximumPlaintext(blockSize: Int) -> Int {
        switch self {
        case .raw: blockSize
        case .pkcs1: blockSize - 11
        case .oaep(let digest): blockSize - 2 * digest.length - 2
        }
    }
}
