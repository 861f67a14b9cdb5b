import Foundation
import KeychainCore
import KeychainTPM

extension SecureEnclave {
    /// Makes a Secure Enclave key pair inside the TPM, as Apple's rules allow: an elliptic-curve key of 256 bits,
    /// never extractable. The private item's secret is the TPM's wrapped blob; the public item, when asked for, holds
    /// the public key as any does.
    static func generate(_ generation: KeyGeneration) throws(EngineError) -> [NewItem] {
        guard generation.keyType == CredentialAttributes.ellipticCurveType, generation.sizeInBits == 256 else {
            let type = generation.keyType == CredentialAttributes.rsaType ? "RSA" : "type \(generation.keyType)"
            throw EngineError(
                .param,
                "kSecAttrTokenID \(tokenID): the Secure Enclave makes elliptic-curve keys of 256 bits "
                    + "(kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits 256) only, not \(type) of "
                    + "\(generation.sizeInBits) bits")
        }
        guard generation.privateKey.attributes[.isExtractable] != .bool(true) else {
            throw EngineError(
                .param, "kSecAttrTokenID \(tokenID): a Secure Enclave key never leaves it (kSecAttrIsExtractable true)")
        }
        // Its blob opens on this TPM only: it cannot follow the user's other devices.
        guard generation.privateKey.attributes[.synchronizable] != .bool(true) else {
            throw EngineError(
                .param,
                "kSecAttrTokenID \(tokenID): a Secure Enclave key stays on its device (kSecAttrSynchronizable true)")
        }
        let made = try withTPM("making a Secure Enclave key") { (tpm) throws(TPMError) in try tpm.createP256Key() }
        let publicKey = try AsymmetricKey.importing(Data(made.publicKey), kind: .ec(.p256), isPrivate: false)
        var items: [NewItem] = []
        var privateItem = generation.privateKey
        privateItem.itemClass = .key
        privateItem.attributes = try privateAttributes(publicKey, given: privateItem.attributes)
        privateItem.data = Data(made.blob.serialized())
        items.append(privateItem)
        if var publicItem = generation.publicKey {
            // The public half is an ordinary key: it lives outside the token, as Apple's does.
            publicItem.attributes[.tokenID] = nil
            let half = try CredentialAttributes.key(publicKey, given: publicItem.attributes, tag: nil, label: nil)
            publicItem.itemClass = .key
            publicItem.attributes = half.attributes
            publicItem.data = half.data
            items.append(publicItem)
        }
        return items
    }

    /// The private item's attributes: what the key decides, what the token decides (never extractable, always
    /// sensitive, the token's id), then the caller's over the defaults.
    private static func privateAttributes(
        _ publicKey: AsymmetricKey, given: ItemAttributes
    ) throws(EngineError) -> ItemAttributes {
        var attributes = given
        attributes[.keyClass] = .integer(CredentialAttributes.privateKeyClass)
        attributes[.type] = .integer(CredentialAttributes.ellipticCurveType)
        attributes[.keySizeInBits] = .integer(256)
        attributes[.effectiveKeySize] = .integer(256)
        attributes[.tokenID] = .string(tokenID)
        attributes[.isExtractable] = .bool(false)
        attributes[.isSensitive] = .bool(true)
        let defaults: [(AttributeKey, AttributeValue)] = [
            (.applicationLabel, .data(try CredentialAttributes.applicationLabel(of: publicKey))),
            (.isPermanent, .bool(true)), (.canSign, .bool(true)), (.canVerify, .bool(false)),
            (.canDecrypt, .bool(false)), (.canEncrypt, .bool(false)), (.canDerive, .bool(true)),
            (.canWrap, .bool(false)), (.canUnwrap, .bool(false)),
        ]
        for (attribute, value) in defaults where attributes[attribute] == nil { attributes[attribute] = value }
        return attributes
    }

    /// Whether a Secure Enclave key's private half does `operation`: ECDSA over SHA-256 (or a 32-byte digest), ECDH
    /// and ECIES (as `SecKeyIsAlgorithmSupported` answers for it).
    package static func supports(_ operation: KeyOperation) -> Bool {
        switch operation {
        case .signature(.ecdsaX962(let digest, _)), .signature(.ecdsaRFC4754(let digest, _)):
            digest == nil || digest == .sha256
        case .keyExchange, .ecies: true
        case .signature, .encryption, .rsaAESGCM: false
        }
    }

    /// A key made inside the TPM for this process alone (Apple's Secure Enclave key that is not stored): its blob,
    /// which ``perform(_:blob:)`` uses, and its public key.
    package static func makeKey() throws(EngineError) -> (blob: Data, publicKey: AsymmetricKey) {
        let made = try withTPM("making a Secure Enclave key") { (tpm) throws(TPMError) in try tpm.createP256Key() }
        let publicKey = try AsymmetricKey.importing(Data(made.publicKey), kind: .ec(.p256), isPrivate: false)
        return (Data(made.blob.serialized()), publicKey)
    }

    /// Runs `use` with the Secure Enclave key whose blob is `data`: the public key is read from the blob; a
    /// signature (ECDSA over SHA-256), a key exchange and ECIES decryption run their private step in the TPM.
    package static func perform(_ use: KeyUse, blob data: Data) throws(EngineError) -> Data {
        let key = try key(in: data)
        if use.operation == .publicKey { return Data(key.publicKey) }
        guard let operation = KeyOperation(identifier: use.algorithm) else {
            throw EngineError(.param, "the algorithm \(use.algorithm) is not one this keychain knows")
        }
        switch (use.operation, operation) {
        case (.sign, .signature(.ecdsaX962(let digest, let isDigest))):
            return try sign(use.input, digest: digest, isDigest: isDigest, algorithm: use.algorithm, with: key)
        case (.sign, .signature(.ecdsaRFC4754(let digest, let isDigest))):
            let der = try sign(use.input, digest: digest, isDigest: isDigest, algorithm: use.algorithm, with: key)
            return try ECDSASignature.raw(fromDER: der, fieldBytes: 32)
        case (.keyExchange, .keyExchange(_, let kdf)):
            // P-256's cofactor is 1: cofactor ECDH is the standard one.
            let secret = try sharedSecret(key, peer: use.input)
            guard let kdf else { return secret }
            return try X963KDF.derive(secret, sharedInfo: use.sharedInfo, size: use.requestedSize, digest: kdf)
        case (.decrypt, .ecies(_, let kdf, let variableIV)):
            return try HybridEncryption.eciesOpen(use.input, curve: .p256, kdf: kdf, variableIV: variableIV) {
                (ephemeral) throws(EngineError) -> Data in try sharedSecret(key, peer: ephemeral)
            }
        default:
            throw EngineError(
                .param,
                "\(use.algorithm) does not \(use.operation) with a Secure Enclave key (SecKeyIsAlgorithmSupported: "
                    + "false): it signs with ECDSA over SHA-256, agrees (ECDH) and decrypts ECIES")
        }
    }

    /// An ECDSA signature (DER) by the TPM over the SHA-256 digest of `input`, or over `input` when it is a digest
    /// of 32 bytes: the TPM's key signs SHA-256 digests only.
    private static func sign(
        _ input: Data, digest: Digest?, isDigest: Bool, algorithm: String, with key: TPMP256Key
    ) throws(EngineError) -> Data {
        let hashed: Data
        switch (digest, isDigest) {
        case (.sha256, false): hashed = try Digest.sha256.hash(input)
        case (.sha256, true), (nil, true):
            guard input.count == 32 else {
                throw EngineError(
                    .param, "\(algorithm): a Secure Enclave key signs a SHA-256 digest of 32 bytes, not \(input.count)")
            }
            hashed = input
        default:
            throw EngineError(
                .param, "\(algorithm): a Secure Enclave key signs with ECDSA over SHA-256 only (…X962SHA256)")
        }
        return Data(
            try withTPM("signing") { (tpm) throws(TPMError) in try tpm.sign(digest: [UInt8](hashed), with: key) })
    }

    /// ECDH in the TPM with `peer`, a P-256 public key's external representation: the shared X coordinate.
    private static func sharedSecret(_ key: TPMP256Key, peer: Data) throws(EngineError) -> Data {
        // Read as a key first, so that a point of another curve, or off this one, is named as such.
        let point: AsymmetricKey
        do {
            point = try AsymmetricKey.importing(peer, kind: .ec(.p256), isPrivate: false)
        } catch {
            throw EngineError(
                .param, "the other key is not a P-256 public key, as a Secure Enclave key needs: \(error.message)")
        }
        let bytes = [UInt8](try point.publicRepresentation())
        let secret = try withTPM("key agreement") { (tpm) throws(TPMError) in
            try tpm.sharedSecret(with: key, peer: bytes)
        }
        defer { secret.wipe() }
        return Data(secret)
    }
}
