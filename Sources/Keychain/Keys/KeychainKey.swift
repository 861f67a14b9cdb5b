import Foundation
import KeychainCore
import KeychainKeys

/// A key stored in the keychain (`kSecClassKey`): what it is and how it is found, never its private bytes. A
/// private key is used through the keychain (``Keychain/sign(_:with:algorithm:)``, ``Keychain/decrypt(_:with:algorithm:)``,
/// ``Keychain/sharedSecret(with:peerPublicKey:)``); one that is not extractable never leaves it (through keychaind,
/// it never reaches this process).
public struct KeychainKey: Sendable, Hashable {
    /// The key's family and size.
    public enum Algorithm: Sendable, Hashable, CustomStringConvertible {
        /// An elliptic-curve key on NIST P-256, P-384 or P-521 (`bits` 256, 384, 521).
        case ellipticCurve(bits: Int)
        /// An RSA key of `bits` bits (1024–4096).
        case rsa(bits: Int)

        /// P-256, the default: what `SecKeyCreateRandomKey` code uses most.
        public static let p256 = Algorithm.ellipticCurve(bits: 256)

        /// `P-256`, `RSA-2048` …
        public var description: String {
            switch self {
            case .ellipticCurve(let bits): "P-\(bits)"
            case .rsa(let bits): "RSA-\(bits)"
            }
        }

        /// Apple's key type number (`kSecAttrKeyType`): 73 for an elliptic curve, 42 for RSA.
        public var keyTypeNumber: Int { Int(keyType) }
        /// The key's size in bits.
        public var bitCount: Int { bits }

        var keyType: Int64 {
            switch self {
            case .ellipticCurve: CredentialAttributes.ellipticCurveType
            case .rsa: CredentialAttributes.rsaType
            }
        }

        var bits: Int {
            switch self {
            case .ellipticCurve(let bits), .rsa(let bits): bits
            }
        }
    }

    /// The key's family and size.
    public var algorithm: Algorithm
    /// Whether this is the private half.
    public var isPrivate: Bool
    /// The application's tag (`atag`).
    public var tag: Data?
    /// A user-visible label (`labl`).
    public var label: String?
    /// The access group (`agrp`).
    public var accessGroup: String?
    /// When the key can be used (`pdmn`).
    public var accessibility: Accessibility
    /// Whether the key's bytes may leave the keychain (`extr`).
    public var isExtractable: Bool
    /// The SHA-1 of the public key (`klbl`): what a certificate's public-key hash matches.
    public internal(set) var applicationLabel: Data
    /// The public key's external representation (ANSI X9.63 for EC, PKCS#1 for RSA): verify and encrypt with it
    /// anywhere.
    public internal(set) var publicKey: Data
    /// The item's persistent reference.
    public internal(set) var persistentReference: Data
    /// When the key was stored.
    public internal(set) var creationDate: Date?

    /// The key an item holds; a private key without its data (kept by the keychain) is asked for its public half.
    init(_ item: Item, publicKey: Data) throws(EngineError) {
        let attributes = item.attributes
        guard case .integer(let type) = attributes[.type], case .integer(let bits) = attributes[.keySizeInBits] else {
            throw EngineError(.decode, "the key item has no type or size")
        }
        algorithm = type == CredentialAttributes.rsaType ? .rsa(bits: Int(bits)) : .ellipticCurve(bits: Int(bits))
        isPrivate = attributes[.keyClass] == .integer(CredentialAttributes.privateKeyClass)
        switch attributes[.applicationTag] {
        case .data(let bytes): tag = bytes
        case .string(let text): tag = Data(text.utf8)
        default: tag = nil
        }
        label = attributes.string(.label)
        accessGroup = attributes.string(.accessGroup)
        accessibility = Accessibility(ProtectionClass(rawValue: attributes.string(.accessible) ?? "") ?? .default)
        isExtractable = attributes.bool(.isExtractable) ?? true
        applicationLabel = attributes[.applicationLabel]?.dataValue ?? Data()
        self.publicKey = publicKey
        persistentReference = item.persistentReference.data
        if case .date(let date) = attributes[.creationDate] { creationDate = date }
    }

    /// The query that names exactly this key.
    var query: ItemQuery {
        get throws(EngineError) {
            guard let reference = PersistentReference(data: persistentReference) else {
                throw EngineError(.param, "the key's persistent reference is not one")
            }
            return ItemQuery(itemClass: .key, synchronizable: .any, persistentReference: reference)
        }
    }

    /// The public key in PEM (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo), as `openssl pkey -pubin` reads it.
    public func publicKeyPEM() throws(KeychainError) -> String {
        do throws(EngineError) {
            return try publicHalf().publicKeyPEM()
        } catch {
            throw KeychainError(error, doing: "cannot write the \(algorithm) public key as PEM")
        }
    }

    /// The public half in memory, for the operations anyone may do (verify, encrypt).
    func publicHalf() throws(EngineError) -> AsymmetricKey {
        try AsymmetricKey.importing(
            publicKey, kind: algorithm.keyType == CredentialAttributes.rsaType ? .rsa : .ec(.p256), isPrivate: false)
    }
}

/// A signature algorithm, with Apple's identifier (`SecKeyAlgorithm`).
public struct KeySignatureAlgorithm: Sendable, Hashable {
    /// Apple's identifier.
    public let identifier: String

    /// ECDSA over the message hashed with SHA-256, X9.62 DER (Apple's `ecdsaSignatureMessageX962SHA256`).
    public static let ecdsaSHA256 = KeySignatureAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA over the message hashed with SHA-384.
    public static let ecdsaSHA384 = KeySignatureAlgorithm(identifier: "algid:sign:ECDSA:message-X962:SHA384")
    /// RSA PKCS#1 v1.5 over the message hashed with SHA-256.
    public static let rsaPKCS1SHA256 = KeySignatureAlgorithm(identifier: "algid:sign:RSA:message-PKCS1v15:SHA256")
    /// RSA PSS over the message hashed with SHA-256.
    public static let rsaPSSSHA256 = KeySignatureAlgorithm(identifier: "algid:sign:RSA:message-PSS:SHA256:SHA256:32")

    /// The usual algorithm of a key: ECDSA SHA-256 for EC keys, PKCS#1 v1.5 SHA-256 for RSA.
    public static func `default`(for key: KeychainKey) -> KeySignatureAlgorithm {
        if case .rsa = key.algorithm { return .rsaPKCS1SHA256 }
        return .ecdsaSHA256
    }
}

/// An encryption algorithm (RSA, or ECIES for EC keys), with Apple's identifier.
public struct KeyEncryptionAlgorithm: Sendable, Hashable {
    /// Apple's identifier.
    public let identifier: String

    /// OAEP with SHA-256 (Apple's `rsaEncryptionOAEPSHA256`).
    public static let rsaOAEPSHA256 = KeyEncryptionAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA256")
    /// OAEP with SHA-1.
    public static let rsaOAEPSHA1 = KeyEncryptionAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA1")
    /// PKCS#1 v1.5.
    public static let rsaPKCS1 = KeyEncryptionAlgorithm(identifier: "algid:encrypt:RSA:PKCS1")
    /// RSA OAEP SHA-256 wrapping an AES-GCM key: any length of message (Apple's `rsaEncryptionOAEPSHA256AESGCM`).
    public static let rsaOAEPSHA256AESGCM = KeyEncryptionAlgorithm(identifier: "algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    /// ECIES, X9.63 SHA-256, AES-GCM with a derived IV, for EC keys (Apple's
    /// `eciesEncryptionStandardVariableIVX963SHA256AESGCM`).
    public static let eciesSHA256AESGCM = KeyEncryptionAlgorithm(
        identifier: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
}
