import Foundation
import KeychainCore
import KeychainKeys

/// An RSA or elliptic-curve key, public or private (Apple's `SecKeyRef`). Made by `SecKeyCreateRandomKey` or
/// `SecKeyCreateWithData`; immutable, so safe to share. Two `SecKey`s are equal when they are the same key: the same
/// half of the same key pair, as Apple's `CFEqual` says.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The key itself; for a key the keychain holds (``storedKey``), its public half.
    let key: AsymmetricKey
    /// The attributes it was made with that describe it (`atag`, `labl`), as `SecKeyCopyAttributes` returns them.
    let tag: Data?
    let label: String?
    /// The public key's external representation, computed once: equality, hashing and `klbl` use it.
    let publicBytes: Data
    /// For a private key that is not extractable: the stored key item its private operations run on, inside the
    /// keychain (keychaind, for its clients), so this process never holds the key.
    let storedKey: StoredKey?
    /// The token the private key lives in (`kSecAttrTokenID`: the Secure Enclave, which is the TPM), if any.
    let tokenID: String?
    /// For a Secure Enclave key that is not stored: the TPM's wrapped blob its private operations load, in this
    /// process's TPM (``key`` is its public half).
    let enclaveBlob: Data?

    init(key: AsymmetricKey, tag: Data? = nil, label: String? = nil) throws(EngineError) {
        self.key = key
        self.tag = tag
        self.label = label
        self.storedKey = nil
        self.tokenID = nil
        self.enclaveBlob = nil
        publicBytes = try key.publicRepresentation()
    }

    /// A Secure Enclave key that is not stored: `blob` is the TPM's, `publicKey` its public half.
    init(enclaveBlob blob: Data, publicKey: AsymmetricKey, tag: Data?, label: String?) throws(EngineError) {
        self.key = publicKey
        self.tag = tag
        self.label = label
        self.storedKey = nil
        self.tokenID = SecureEnclave.tokenID
        self.enclaveBlob = blob
        publicBytes = try publicKey.publicRepresentation()
    }

    /// A handle to a stored private key that is not extractable: `publicKey` is its public half; `tokenID` the
    /// token it lives in.
    init(
        stored: StoredKey, publicKey: AsymmetricKey, tag: Data?, label: String?, tokenID: String? = nil
    ) throws(EngineError) {
        self.key = publicKey
        self.tag = tag
        self.label = label
        self.storedKey = stored
        self.tokenID = tokenID
        self.enclaveBlob = nil
        publicBytes = try publicKey.publicRepresentation()
    }

    /// Whether this is a private key (held here or by the keychain).
    var isPrivate: Bool { storedKey != nil || enclaveBlob != nil || key.isPrivate }

    /// Whether the private key is held elsewhere (the keychain, the TPM): this process has its public half only.
    var isHeldElsewhere: Bool { storedKey != nil || enclaveBlob != nil }

    /// Whether two keys are the same half of the same key pair.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.isPrivate == rhs.isPrivate && lhs.key.kind == rhs.key.kind && lhs.publicBytes == rhs.publicBytes
    }

    /// Hashes the key's public half and which half it is.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isPrivate)
        hasher.combine(publicBytes)
    }

    /// `<SecKeyRef key type: ECPrivateKey, block size: 256 bits>`, in Apple's manner; never the key's bytes.
    public var description: String {
        let type: String
        switch key.kind {
        case .rsa: type = isPrivate ? "RSAPrivateKey" : "RSAPublicKey"
        case .ec: type = isPrivate ? "ECPrivateKey" : "ECPublicKey"
        }
        let place = storedKey != nil ? ", in the keychain" : enclaveBlob != nil ? ", in the TPM" : ""
        return "<SecKeyRef key type: \(type), block size: \(key.sizeInBits) bits\(place)>"
    }

    /// The key's bytes, when they may be read: a key the keychain holds without letting it go is
    /// errSecUnimplemented, as Apple's export of such a key is.
    func extractable() throws(EngineError) -> AsymmetricKey {
        guard !isHeldElsewhere else {
            throw EngineError(
                .unimplemented,
                "export not implemented for key \(description): it is not extractable (kSecAttrIsExtractable false)")
        }
        return key
    }

    /// Runs a use of the key: a private key's sign, decrypt and exchange where the key is (here, or in the keychain
    /// that holds it), the public operations here.
    func run(_ use: KeyUse) throws(EngineError) -> Data {
        if let storedKey, use.operation != .publicKey { return try storedKey.use(use) }
        if let enclaveBlob, use.operation != .publicKey { return try SecureEnclave.perform(use, blob: enclaveBlob) }
        return try KeyUsePerformer().perform(use, with: key)
    }

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
