import Foundation
import KeychainCore
import KeychainKeys
import KeychainPrompts

extension CredentialAttributes {
    /// The `SecKey` a stored key item is (its data and attributes are needed): the key itself, or for a private key
    /// the keychain does not let go (no data came back), a handle whose private operations run in the keychain,
    /// found through `keychain` with `authentication`.
    static func secKey(
        of item: Item, keychain: SecItemKeychain, authentication: AuthenticationLoop.Options
    ) throws(EngineError) -> SecKey {
        var tag: Data?
        switch item.attributes[.applicationTag] {
        case .data(let bytes): tag = bytes
        case .string(let text): tag = Data(text.utf8)
        default: tag = nil
        }
        let label = item.attributes.string(.label)
        var data = item.data ?? Data()
        if data.isEmpty,
            item.attributes.bool(.isExtractable) != false || item.attributes[.keyClass] != .integer(privateKeyClass)
        {
            // Read without its bytes: a key that may leave is read now, by its reference.
            let query = ItemQuery(
                itemClass: .key, synchronizable: .any, persistentReference: item.persistentReference,
                returning: [.data])
            data = try AuthenticationLoop.perform(authentication, backend: keychain.backend) {
                (given) throws(EngineError) -> Data in
                var query = query
                query.authentication = given
                return try keychain.backend.copyMatching(query, for: keychain.caller).first?.data ?? Data()
            }
        }
        guard !data.isEmpty else {
            guard item.attributes[.keyClass] == .integer(privateKeyClass) else {
                throw EngineError(.internalComponent, "the key item was read without its data")
            }
            let stored = StoredKey(
                reference: item.persistentReference, keychain: keychain, authentication: authentication)
            let publicBytes = try stored.use(KeyUse(.publicKey))
            var publicAttributes = item.attributes
            publicAttributes[.keyClass] = .integer(publicKeyClass)
            let publicKey = try key(in: publicBytes, attributes: publicAttributes)
            return try SecKey(
                stored: stored, publicKey: publicKey, tag: tag, label: label,
                tokenID: item.attributes.string(.tokenID))
        }
        return try SecKey(key: try key(in: data, attributes: item.attributes, isStored: true), tag: tag, label: label)
    }

    /// The `SecCertificate` a stored certificate item holds.
    static func secCertificate(of item: Item) throws(EngineError) -> SecCertificate {
        guard let data = item.data, !data.isEmpty else {
            throw EngineError(.internalComponent, "the certificate item was read without its data")
        }
        return SecCertificate(try Certificate(der: data))
    }
}
