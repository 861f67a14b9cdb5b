import Foundation

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
        "algid:sign:RSA:digest-PSS:SHA1:SHA1": .signature(.rsaPSS(.sha1, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA224:SHA224": .signature(.rsaPSS(.sha224, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA256:SHA256": .signature(.rsaPSS(.sha256, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA384:SHA384": .signature(.rsaPSS(.sha384, isDigest: true)),
        "algid:sign:RSA:digest-PSS:SHA512:SHA512": .signature(.rsaPSS(.sha512, isDigest: true)),
        "algid:sign:RSA:message-PSS:SHA1:SHA1": .signature(.rsaPSS(.sha1, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA224:SHA224": .signature(.rsaPSS(.sha224, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA256:SHA256": .signature(.rsaPSS(.sha256, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA384:SHA384": .signature(.rsaPSS(.sha384, isDigest: false)),
        "algid:sign:RSA:message-PSS:SHA512:SHA512": .signature(.rsaPSS(.sha512, isDigest: false)),
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
        "algid:keyexchange:ECDH:standard": .keyExchange(cofactor: false, kdf: nil),
        "algid:keyexchange:ECDH:cofactor": .keyExchange(cofactor: true, kdf: nil),
        "algid:keyexchange:ECDH:standard:X963SHA1": .keyExchange(cofactor: false, kdf: .sha1),
        "algid:keyexchange:ECDH:standard:X963SHA224": .keyExchange(cofactor: false, kdf: .sha224),
        "algid:keyexchange:ECDH:standard:X963SHA256": .keyExchange(cofactor: false, kdf: .sha256),
        "algid:keyexchange:ECDH:standard:X963SHA384": .keyExchange(cofactor: false, kdf: .sha384),
        "algid:keyexchange:ECDH:standard:X963SHA512": .keyExchange(cofactor: false, kdf: .sha512),
        "algid:keyexchange:ECDH:cofactor:X963SHA1": .keyExchange(cofactor: true, kdf: .sha1),
        "algid:keyexchange:ECDH:cofactor:X963SHA224": .keyExchange(cofactor: true, kdf: .sha224),
        "algid:keyexchange:ECDH:cofactor:X963SHA256": .keyExchange(cofactor: true, kdf: .sha256),
        "algid:keyexchange:ECDH:cofactor:X963SHA384": .keyExchange(cofactor: true, kdf: .sha384),
        "algid:keyexchange:ECDH:cofactor:X963SHA512": .keyExchange(cofactor: true, kdf: .sha512),
    ]
}
