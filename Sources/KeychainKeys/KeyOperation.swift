import Foundation
import KeychainCore

/// What one of Apple's key algorithms does (`SecKeyAlgorithm`'s identifiers, such as
/// `algid:sign:ECDSA:message-X962:SHA256`), in the key layer's terms: the table the `Security` functions and the
/// keychain's own key operations (a key held by keychaind) read alike.
package enum KeyOperation: Sendable, Hashable {
    /// A signature in this scheme.
    case signature(SignatureScheme)
    /// RSA encryption with this padding.
    case encryption(EncryptionPadding)
    /// ECDH, standard or cofactor, the secret through the X9.63 KDF with this digest when one is named.
    case keyExchange(cofactor: Bool, kdf: Digest?)
    /// ECIES with AES-GCM (``HybridEncryption``): ECDH standard or cofactor, the X9.63 KDF with this digest, the IV
    /// derived too or zero.
    case ecies(cofactor: Bool, kdf: Digest, variableIV: Bool)
    /// RSA OAEP with this digest wrapping an AES-GCM key (``HybridEncryption``).
    case rsaAESGCM(Digest)

    /// Whether the operation encrypts (with a public key) and decrypts (with the private one).
    package var isEncryption: Bool {
        switch self {
        case .encryption, .ecies, .rsaAESGCM: true
        case .signature, .keyExchange: false
        }
    }

    /// Whether the operation is for RSA keys (else EC keys).
    package var isRSA: Bool {
        switch self {
        case .signature(let scheme): scheme.isRSA
        case .encryption, .rsaAESGCM: true
        case .keyExchange, .ecies: false
        }
    }

    /// `plaintext` encrypted for `key` (its public half) by this encryption operation.
    package func encrypt(_ plaintext: Data, for key: AsymmetricKey) throws(EngineError) -> Data {
        switch self {
        case .encryption(let padding): return try key.encrypt(plaintext, padding: padding)
        case .ecies(let cofactor, let kdf, let variableIV):
            return try HybridEncryption.eciesSeal(
                plaintext, to: key, cofactor: cofactor, kdf: kdf, variableIV: variableIV)
        case .rsaAESGCM(let digest): return try HybridEncryption.rsaSeal(plaintext, to: key, oaep: digest)
        case .signature, .keyExchange: throw EngineError(.param, "the algorithm does not encrypt")
        }
    }

    /// `ciphertext` decrypted with the private `key` by this encryption operation.
    package func decrypt(_ ciphertext: Data, with key: AsymmetricKey) throws(EngineError) -> Data {
        switch self {
        case .encryption(let padding): return try key.decrypt(ciphertext, padding: padding)
        case .ecies(let cofactor, let kdf, let variableIV):
            return try HybridEncryption.eciesOpen(
                ciphertext, with: key, cofactor: cofactor, kdf: kdf, variableIV: variableIV)
        case .rsaAESGCM(let digest): return try HybridEncryption.rsaOpen(ciphertext, with: key, oaep: digest)
        case .signature, .keyExchange: throw EngineError(.param, "the algorithm does not decrypt")
        }
    }

    /// The operation an identifier names, or `nil` for one this layer does not know.
    package init?(identifier: String) {
        guard let operation = Self.operations[identifier] else { return nil }
        self = operation
    }

    private static let operations: [String: KeyOperation] = [
        "algid:sign:RSA:raw": .signature(.rsaRaw),
        "algid:sign:RSA:digest-PKCS1v15": .signature(.rsaPKCS1v15Raw),
        "algid:sign:RSA:digest-PKCS1v15:SHA1": .signature(.rsaPKCS1v15(.sha1, isDigest: true)),
        "algid:sign:RSA:digest-PKCS1v15:SHA224": .signature(.rsaPKCS1v15(.sha224, isDigest: true)),
        "algid:sign:RSA:digest-PKCS1v15:SHA256": .signature(.rsaPKCS1v15(.sha256, isDigest: true)),
        "algid:sign:RSA:digest-PKCS1v15:SHA384": .signature(.rsaPKCS1v15(.sha384, isDigest: true)),
        "algid:sign:RSA:digest-PKCS1v15:SHA512": .signature(.rsaPKCS1v15(.sha512, isDigest: true)),
        "algid:sign:RSA:message-PKCS1v15:SHA1": .signature(.rsaPKCS1v15(.sha1, isDigest: false)),
        "algid:sign:RSA:message-PKCS1v15:SHA224": .signature(.rsaPKCS1v15(.sha224, isDigest: false)),
        "algid:sign:RSA:message-PKCS1v15:SHA256": .signature(.rsaPKCS1v15(.sha256, isDigest: false)),
        "algid:sign:RSA:message-PKCS1v15:SHA384": .signature(.rsaPKCS1v15(.sha384, isDigest: false)),
        "algid:sign:RSA:message-PKCS1v15:SHA512": .signature(.rsaPKCS1v15(.sha512, isDigest: false)),
        "algid:sign:RSA:digest-PSS:SHA1:SHA1:20": .signature(.rsaPSS(.sha1, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA224:SHA224:24": .signature(.rsaPSS(.sha224, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA256:SHA256:32": .signature(.rsaPSS(.sha256, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA384:SHA384:48": .signature(.rsaPSS(.sha384, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA512:SHA512:64": .signature(.rsaPSS(.sha512, isDigest: true)),
        "algid:sign:RSA:message-PSS:SHA1:SHA1:20": .signature(.rsaPSS(.sha1, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA224:SHA224:24": .signature(.rsaPSS(.sha224, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA256:SHA256:32": .signature(.rsaPSS(.sha256, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA384:SHA384:48": .signature(.rsaPSS(.sha384, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA512:SHA512:64": .signature(.rsaPSS(.sha512, isDigest: false)),
        "algid:sign:ECDSA:RFC4754": .signature(.ecdsaRFC4754(nil, isDigest: true)),
        "algid:sign:ECDSA:digest-X962": .signature(.ecdsaX962(nil, isDigest: true)),
        "algid:sign:ECDSA:digest-X962:SHA1": .signature(.ecdsaX962(.sha1, isDigest: true)),
        "algid:sign:ECDSA:digest-X962:SHA224": .signature(.ecdsaX962(.sha224, isDigest: true)),
        "algid:sign:ECDSA:digest-X962:SHA256": .signature(.ecdsaX962(.sha256, isDigest: true)),
        "algid:sign:ECDSA:digest-X962:SHA384": .signature(.ecdsaX962(.sha384, isDigest: true)),
        "algid:sign:ECDSA:digest-X962:SHA512": .signature(.ecdsaX962(.sha512, isDigest: true)),
        "algid:sign:ECDSA:message-X962:SHA1": .signature(.ecdsaX962(.sha1, isDigest: false)),
        "algid:sign:ECDSA:message-X962:SHA224": .signature(.ecdsaX962(.sha224, isDigest: false)),
        "algid:sign:ECDSA:message-X962:SHA256": .signature(.ecdsaX962(.sha256, isDigest: false)),
        "algid:sign:ECDSA:message-X962:SHA384": .signature(.ecdsaX962(.sha384, isDigest: false)),
        "algid:sign:ECDSA:message-X962:SHA512": .signature(.ecdsaX962(.sha512, isDigest: false)),
        "algid:sign:ECDSA:digest-RFC4754:SHA1": .signature(.ecdsaRFC4754(.sha1, isDigest: true)),
        "algid:sign:ECDSA:digest-RFC4754:SHA224": .signature(.ecdsaRFC4754(.sha224, isDigest: true)),
        "algid:sign:ECDSA:digest-RFC4754:SHA256": .signature(.ecdsaRFC4754(.sha256, isDigest: true)),
        "algid:sign:ECDSA:digest-RFC4754:SHA384": .signature(.ecdsaRFC4754(.sha384, isDigest: true)),
        "algid:sign:ECDSA:digest-RFC4754:SHA512": .signature(.ecdsaRFC4754(.sha512, isDigest: true)),
        "algid:sign:ECDSA:message-RFC4754:SHA1": .signature(.ecdsaRFC4754(.sha1, isDigest: false)),
        "algid:sign:ECDSA:message-RFC4754:SHA224": .signature(.ecdsaRFC4754(.sha224, isDigest: false)),
        "algid:sign:ECDSA:message-RFC4754:SHA256": .signature(.ecdsaRFC4754(.sha256, isDigest: false)),
        "algid:sign:ECDSA:message-RFC4754:SHA384": .signature(.ecdsaRFC4754(.sha384, isDigest: false)),
        "algid:sign:ECDSA:message-RFC4754:SHA512": .signature(.ecdsaRFC4754(.sha512, isDigest: false)),
        "algid:encrypt:RSA:raw": .encryption(.raw),
        "algid:encrypt:RSA:PKCS1": .encryption(.pkcs1),
        "algid:encrypt:RSA:OAEP:SHA1": .encryption(.oaep(.sha1)),
        "algid:encrypt:RSA:OAEP:SHA224": .encryption(.oaep(.sha224)),
        "algid:encrypt:RSA:OAEP:SHA256": .encryption(.oaep(.sha256)),
        "algid:encrypt:RSA:OAEP:SHA384": .encryption(.oaep(.sha384)),
        "algid:encrypt:RSA:OAEP:SHA512": .encryption(.oaep(.sha512)),
        "algid:keyexchange:ECDH": .keyExchange(cofactor: false, kdf: nil),
        "algid:keyexchange:ECDHC": .keyExchange(cofactor: true, kdf: nil),
        "algid:keyexchange:ECDH:KDFX963:SHA1": .keyExchange(cofactor: false, kdf: .sha1),
        "algid:keyexchange:ECDH:KDFX963:SHA224": .keyExchange(cofactor: false, kdf: .sha224),
        "algid:keyexchange:ECDH:KDFX963:SHA256": .keyExchange(cofactor: false, kdf: .sha256),
        "algid:keyexchange:ECDH:KDFX963:SHA384": .keyExchange(cofactor: false, kdf: .sha384),
        "algid:keyexchange:ECDH:KDFX963:SHA512": .keyExchange(cofactor: false, kdf: .sha512),
        "algid:keyexchange:ECDHC:KDFX963:SHA1": .keyExchange(cofactor: true, kdf: .sha1),
        "algid:keyexchange:ECDHC:KDFX963:SHA224": .keyExchange(cofactor: true, kdf: .sha224),
        "algid:keyexchange:ECDHC:KDFX963:SHA256": .keyExchange(cofactor: true, kdf: .sha256),
        "algid:keyexchange:ECDHC:KDFX963:SHA384": .keyExchange(cofactor: true, kdf: .sha384),
        "algid:keyexchange:ECDHC:KDFX963:SHA512": .keyExchange(cofactor: true, kdf: .sha512),
        "algid:encrypt:RSA:OAEP:SHA1:AESGCM": .rsaAESGCM(.sha1),
        "algid:encrypt:RSA:OAEP:SHA224:AESGCM": .rsaAESGCM(.sha224),
        "algid:encrypt:RSA:OAEP:SHA256:AESGCM": .rsaAESGCM(.sha256),
        "algid:encrypt:RSA:OAEP:SHA384:AESGCM": .rsaAESGCM(.sha384),
        "algid:encrypt:RSA:OAEP:SHA512:AESGCM": .rsaAESGCM(.sha512),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM": .ecies(cofactor: false, kdf: .sha1, variableIV: false),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM": .ecies(cofactor: false, kdf: .sha224, variableIV: false),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM": .ecies(cofactor: false, kdf: .sha256, variableIV: false),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM": .ecies(cofactor: false, kdf: .sha384, variableIV: false),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM": .ecies(cofactor: false, kdf: .sha512, variableIV: false),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV": .ecies(cofactor: false, kdf: .sha224, variableIV: true),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV": .ecies(cofactor: false, kdf: .sha256, variableIV: true),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV": .ecies(cofactor: false, kdf: .sha384, variableIV: true),
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV": .ecies(cofactor: false, kdf: .sha512, variableIV: true),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM": .ecies(cofactor: true, kdf: .sha1, variableIV: false),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM": .ecies(cofactor: true, kdf: .sha224, variableIV: false),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM": .ecies(cofactor: true, kdf: .sha256, variableIV: false),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM": .ecies(cofactor: true, kdf: .sha384, variableIV: false),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM": .ecies(cofactor: true, kdf: .sha512, variableIV: false),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV": .ecies(cofactor: true, kdf: .sha224, variableIV: true),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV": .ecies(cofactor: true, kdf: .sha256, variableIV: true),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV": .ecies(cofactor: true, kdf: .sha384, variableIV: true),
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV": .ecies(cofactor: true, kdf: .sha512, variableIV: true),
    ]
}
