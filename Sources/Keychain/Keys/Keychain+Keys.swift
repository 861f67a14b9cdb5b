import Foundation
import KeychainCore
import KeychainKeys

/// Keys, certificates and identities, typed. Keys are made inside the keychain and used through it: a private key
/// that is not extractable never leaves it.
extension Keychain {
    /// Makes a key pair inside the keychain and stores both halves (all or nothing); returns the private half. The
    /// keychain's access group, accessibility and label apply; by default the private key is not extractable.
    @discardableResult
    public func generateKey(
        _ algorithm: KeychainKey.Algorithm = .p256, tag: Data? = nil, label: String? = nil,
        isExtractable: Bool = false
    ) throws(KeychainError) -> KeychainKey {
        var attributes = ItemAttributes()
        attributes[.accessible] = .string(accessibility.protectionClass.rawValue)
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        if let label = label ?? self.label { attributes[.label] = .string(label) }
        if let tag { attributes[.applicationTag] = .data(tag) }
        var privateAttributes = attributes
        privateAttributes[.isExtractable] = .bool(isExtractable)
        let generation = KeyGeneration(
            keyType: algorithm.keyType, sizeInBits: algorithm.bits,
            privateKey: NewItem(itemClass: .key, attributes: privateAttributes),
            publicKey: NewItem(itemClass: .key, attributes: attributes))
        return try perform("cannot make a \(algorithm) key") { (connection, caller) throws(EngineError) in
            KeyUsePerformer.install()
            let backend = try connection.backend()
            let items = try backend.generateKey(generation, for: caller)
            guard items.count == 2 else { throw EngineError(.internalComponent, "the key pair did not come back") }
            return try KeychainKey(items[0], publicKey: items[1].data ?? Data())
        }
    }

    /// The keys stored with `tag` (or every key when `nil`), both halves, as the caller may see them.
    public func keys(tagged tag: Data? = nil) throws(KeychainError) -> [KeychainKey] {
        var query = ItemQuery(itemClass: .key, synchronizable: .any, limit: .all, returning: [.attributes, .data])
        if let tag { query.attributes[.applicationTag] = .data(tag) }
        return try perform("cannot list the keys") { (connection, caller) throws(EngineError) -> [KeychainKey] in
            KeyUsePerformer.install()
            let backend = try connection.backend()
            let items: [Item]
            do throws(EngineError) {
                items = try backend.copyMatching(query, for: caller)
            } catch  where KeychainError.isNotFound(error) {
                return []
            }
            return try items.map { (item) throws(EngineError) -> KeychainKey in
                let publicKey: Data
                if let data = item.data, !data.isEmpty {
                    publicKey = try CredentialAttributes.key(in: data, attributes: item.attributes)
                        .publicRepresentation()
                } else {
                    publicKey = try backend.useKey(
                        ItemQuery(itemClass: .key, synchronizable: .any, persistentReference: item.persistentReference),
                        KeyUse(.publicKey), for: caller)
                }
                return try KeychainKey(item, publicKey: publicKey)
            }
        }
    }

    /// Removes a key; returns whether it was there.
    @discardableResult
    public func remove(_ key: KeychainKey) throws(KeychainError) -> Bool {
        try perform("cannot remove the \(key.algorithm) key") { (connection, caller) throws(EngineError) -> Bool in
            do throws(EngineError) {
                return try connection.backend().delete(try key.query, for: caller) > 0
            } catch  where KeychainError.isNotFound(error) {
                return false
            }
        }
    }

    /// Signs `message` with a private key, inside the keychain.
    public func sign(
        _ message: Data, with key: KeychainKey, algorithm: KeySignatureAlgorithm? = nil
    ) throws(KeychainError) -> Data {
        let algorithm = algorithm ?? .default(for: key)
        return try use(key, KeyUse(.sign, algorithm: algorithm.identifier, input: message), "sign with")
    }

    /// Whether `signature` is `key`'s (or its pair's) signature of `message` (checked here, with the public key).
    public func verify(
        _ signature: Data, of message: Data, with key: KeychainKey, algorithm: KeySignatureAlgorithm? = nil
    ) throws(KeychainError) -> Bool {
        let algorithm = algorithm ?? .default(for: key)
        do throws(EngineError) {
            guard case .signature(let scheme) = KeyOperation(identifier: algorithm.identifier) else {
                throw EngineError(.param, "\(algorithm.identifier) is not a signature algorithm")
            }
            return try key.publicHalf().verify(signature, of: message, scheme: scheme)
        } catch {
            throw KeychainError(error, doing: "cannot verify with the \(key.algorithm) key")
        }
    }

    /// Encrypts `plaintext` for a key, with its public half, here: RSA (OAEP, PKCS#1, or OAEP wrapping AES-GCM for
    /// any length), or an EC key with ECIES.
    public func encrypt(
        _ plaintext: Data, for key: KeychainKey, algorithm: KeyEncryptionAlgorithm = .rsaOAEPSHA256
    ) throws(KeychainError) -> Data {
        do throws(EngineError) {
            guard let operation = KeyOperation(identifier: algorithm.identifier), operation.isEncryption else {
                throw EngineError(.param, "\(algorithm.identifier) is not an encryption algorithm")
            }
            return try operation.encrypt(plaintext, for: key.publicHalf())
        } catch {
            throw KeychainError(error, doing: "cannot encrypt for the \(key.algorithm) key")
        }
    }

    /// Decrypts `ciphertext` with a private key, inside the keychain.
    public func decrypt(
        _ ciphertext: Data, with key: KeychainKey, algorithm: KeyEncryptionAlgorithm = .rsaOAEPSHA256
    ) throws(KeychainError) -> Data {
        try use(key, KeyUse(.decrypt, algorithm: algorithm.identifier, input: ciphertext), "decrypt with")
    }

    /// The ECDH shared secret of an EC private key and another party's public key (ANSI X9.63), inside the
    /// keychain.
    public func sharedSecret(with key: KeychainKey, peerPublicKey: Data) throws(KeychainError) -> Data {
        try use(
            key, KeyUse(.keyExchange, algorithm: "algid:keyexchange:ECDH", input: peerPublicKey),
            "agree with")
    }

    private func use(_ key: KeychainKey, _ use: KeyUse, _ verb: String) throws(KeychainError) -> Data {
        try perform("cannot \(verb) the \(key.algorithm) key") { (connection, caller) throws(EngineError) -> Data in
            KeyUsePerformer.install()
            let query = try key.query
            let backend = try connection.backend()
            return try authenticated(backend) { (authentication) throws(EngineError) -> Data in
                var query = query
                query.authentication = authentication
                return try backend.useKey(query, use, for: caller)
            }
        }
    }
}
