import Foundation
import KeychainCore

/// The key layer's side of the keychain's key uses (``KeyUse``): the keychain finds and opens the key item, this
/// reads the key from its bytes and runs the operation the algorithm's identifier names. The process installs it
/// (``install()``) before its keychain uses a stored key: keychaind at its start, an app before its first use of
/// a stored key.
package struct KeyUsePerformer: KeyOperating {
    /// The key layer.
    package init() {}

    /// Installs the key layer for this process's keychains. Called before every SecItem call, so after the first it
    /// costs a load: the installation runs once (a lazy static), taking no lock again.
    package static func install() {
        _ = installation
    }

    private static let installation: Void = KeyOperations.install(KeyUsePerformer())

    /// Runs `use` with the stored key.
    package func perform(_ use: KeyUse, key data: Data, attributes: ItemAttributes) throws(EngineError) -> Data {
        // A Secure Enclave key's secret is its TPM blob: its private step runs in the TPM.
        if SecureEnclave.holds(attributes) { return try SecureEnclave.perform(use, blob: data) }
        guard case .integer(let keyClass) = attributes[.keyClass], case .integer(let keyType) = attributes[.type] else {
            // Read without keeping: the reading names what is missing.
            return try perform(
                use, with: try CredentialAttributes.key(in: data, attributes: attributes, isStored: true))
        }
        let key = try PreparedKeyCache.shared.key(in: data, keyClass: keyClass, keyType: keyType) {
            () throws(EngineError) -> AsymmetricKey in
            try CredentialAttributes.key(in: data, attributes: attributes, isStored: true)
        }
        return try perform(use, with: key)
    }

    /// Drops the keys kept read between uses (``PreparedKeyCache``).
    package func forgetPreparedKeys() {
        PreparedKeyCache.shared.removeAll()
    }

    /// Runs `use` with a key in memory: the same operations a stored key gets, for a key the caller holds.
    package func perform(_ use: KeyUse, with key: AsymmetricKey) throws(EngineError) -> Data {
        if use.operation == .publicKey { return try key.publicRepresentation() }
        guard let operation = KeyOperation(identifier: use.algorithm) else {
            throw EngineError(.param, "the algorithm \(use.algorithm) is not one this keychain knows")
        }
        switch (use.operation, operation) {
        case (.sign, .signature(let scheme)) where scheme.isRSA == (key.kind == .rsa):
            return try key.sign(use.input, scheme: scheme)
        case (.decrypt, _) where operation.isEncryption && operation.isRSA == (key.kind == .rsa):
            return try operation.decrypt(use.input, with: key)
        case (.keyExchange, .keyExchange(let cofactor, let kdf)) where key.kind != .rsa:
            let peer = try AsymmetricKey.importing(use.input, kind: key.kind, isPrivate: false)
            let secret = try key.sharedSecret(with: peer, cofactor: cofactor)
            guard let kdf else { return secret }
            return try X963KDF.derive(secret, sharedInfo: use.sharedInfo, size: use.requestedSize, digest: kdf)
        default:
            throw EngineError(
                .param, "\(use.algorithm) does not \(use.operation) with this key (SecKeyIsAlgorithmSupported: false)")
        }
    }

    /// Makes a key pair: its private and public items, completed from the key.
    package func generate(_ generation: KeyGeneration) throws(EngineError) -> [NewItem] {
        if let token = generation.privateKey.attributes[.tokenID] {
            guard SecureEnclave.holds(generation.privateKey.attributes) else {
                throw EngineError(
                    .param, "kSecAttrTokenID \(token) is not a token this keychain has (\(SecureEnclave.tokenID) is)")
            }
            return try SecureEnclave.generate(generation)
        }
        let key: AsymmetricKey
        switch generation.keyType {
        case CredentialAttributes.rsaType: key = try AsymmetricKey.generateRSA(bits: generation.sizeInBits)
        case CredentialAttributes.ellipticCurveType:
            guard let curve = AsymmetricKey.Curve(rawValue: generation.sizeInBits) else {
                throw EngineError(
                    .param, "an elliptic-curve key of \(generation.sizeInBits) bits: the sizes are 256, 384 and 521")
            }
            key = try AsymmetricKey.generateEC(curve)
        default:
            throw EngineError(.param, "the key type \(generation.keyType) is not RSA (42) or an elliptic curve (73)")
        }
        var items: [NewItem] = []
        for (template, half) in [(generation.privateKey, key), (generation.publicKey, try key.publicKey())] {
            guard var item = template else { continue }
            let made = try CredentialAttributes.key(half, given: item.attributes, tag: nil, label: nil)
            item.itemClass = .key
            item.attributes = made.attributes
            item.data = made.data
            items.append(item)
        }
        return items
    }
}
