import Foundation
import KeychainCore
import KeychainKeys

/// An RSA or elliptic-curve key, public or private (Apple's `SecKeyRef`). Made by `SecKeyCreateRandomKey` or
/// `SecKeyCreateWithData`; immutable, so safe to share. Two `SecKey`s are equal when they are the same key: the same
/// half of the same key pair, as Apple's `CFEqual` says.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The key itself.
    let key: AsymmetricKey
    /// The attributes it was made with that describe it (`atag`, `labl`), as `SecKeyCopyAttributes` returns them.
    let tag: Data?
    let label: String?
    /// The public key's external representation, computed once: equality, hashing and `klbl` use it.
    let publicBytes: Data

    init(key: AsymmetricKey, tag: Data? = nil, label: String? = nil) throws(EngineError) {
        self.key = key
        self.tag = tag
        self.label = label
        publicBytes = try key.publicRepresentation()
    }

    /// Whether two keys are the same half of the same key pair.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.key.isPrivate == rhs.key.isPrivate && lhs.key.kind == rhs.key.kind && lhs.publicBytes == rhs.publicBytes
    }

    /// Hashes the key's public half and which half it is.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key.isPrivate)
        hasher.combine(publicBytes)
    }

    /// `<SecKeyRef algorithm id: 3, key type: ECPrivateKey, version: 4, block size: 256 bits, …>`, in Apple's
    /// manner; never the key's bytes.
    public var description: String {
        let type: String
        switch key.kind {
        case .rsa: type = key.isPrivate ? "RSAPrivateKey" : "RSAPublicKey"
        case .ec: type = key.isPrivate ? "ECPrivateKey" : "ECPublicKey"
        }
        return "<SecKeyRef key type: \(type), block size: \(key.sizeInBits) bits>"
    }

    /// The key's bytes may be read: the key itself.
    func extractable() throws(EngineError) -> AsymmetricKey { key }

    /// Apple's `kSecAttrKeyType` value of the key.
    var keyType: String {
        key.kind == .rsa ? kSecAttrKeyTypeRSA as String : kSecAttrKeyTypeECSECPrimeRandom as String
    }
}

/// The operations of `SecKeyIsAlgorithmSupported`, with Apple's values.
public enum SecKeyOperationType: Int, Sendable {
    /// `SecKeyCreateSignature`.
    case sign = 0
    /// `SecKeyVerifySignature`.
    case verify = 1
    /// `SecKeyCreateEncryptedData`.
    case encrypt = 2
    /// `SecKeyCreateDecryptedData`.
    case decrypt = 3
    /// `SecKeyCopyKeyExchangeResult`.
    case keyExchange = 4
}
