import Foundation
import KeychainCore
import KeychainKeys

/// Keys, certificates and identities in the SecItem functions: what an add stores for a `kSecValueRef` or
/// `kSecValueData`, what a reference adds to a query, and Apple's identity join (a certificate with the private key
/// whose application label is the certificate's public-key hash).
enum SecItemCredentials {
    /// The items an add stores: the dictionary's own item for a password; for a key or certificate, its attributes
    /// completed from the object (or from the data); for an identity, its private key and its certificate.
    static func itemsToAdd(_ request: SecItemDictionary) throws(EngineError) -> [(ItemClass, ItemAttributes, Data)] {
        switch (request.itemClass, request.reference) {
        case (.genericPassword, _), (.internetPassword, _):
            return [(request.itemClass, request.attributes, request.data ?? Data())]
        case (.key, _) where request.attributes[.tokenID] != nil:
            // Apple's rule: a key in a token (the Secure Enclave) is generated there, so no bytes claim to be one.
            throw EngineError(
                .param,
                "kSecAttrTokenID \(request.attributes[.tokenID]?.description ?? ""): a key in a token is generated "
                    + "inside it (SecKeyCreateRandomKey), never added")
        case (.key, let key as SecKey):
            let made = try CredentialAttributes.key(
                try key.extractable(), given: request.attributes, tag: key.tag, label: key.label)
            return [(.key, made.attributes, made.data)]
        case (.key, _):
            guard let data = request.data else {
                throw EngineError(.param, "a key item needs kSecValueRef (a SecKey) or kSecValueData (its bytes)")
            }
            let key = try CredentialAttributes.key(in: data, attributes: request.attributes)
            let made = try CredentialAttributes.key(key, given: request.attributes, tag: nil, label: nil)
            return [(.key, made.attributes, made.data)]
        case (.certificate, let identity as SecIdentity):
            var keyAttributes = ItemAttributes()
            for attribute in [AttributeKey.accessGroup, .accessible, .synchronizable, .accessControl] {
                keyAttributes[attribute] = request.attributes[attribute]
            }
            let key = try CredentialAttributes.key(
                try identity.privateKey.extractable(), given: keyAttributes, tag: nil,
                label: identity.certificate.certificate.subjectSummary)
            let certificate = try CredentialAttributes.certificate(
                identity.certificate.certificate, given: request.attributes)
            return [(.key, key.attributes, key.data), (.certificate, certificate.attributes, certificate.data)]
        case (.certificate, let certificate as SecCertificate):
            let made = try CredentialAttributes.certificate(certificate.certificate, given: request.attributes)
            return [(.certificate, made.attributes, made.data)]
        case (.certificate, _):
            guard let data = request.data else {
                throw EngineError(
                    .param, "a certificate item needs kSecValueRef (a SecCertificate) or kSecValueData (its DER)")
            }
            let made = try CredentialAttributes.certificate(try Certificate(der: data), given: request.attributes)
            return [(.certificate, made.attributes, made.data)]
        }
    }

    /// The attributes that find the item a `kSecValueRef` object is: a key's class, type and application label; a
    /// certificate's (or an identity's certificate's) type, issuer and serial number.
    static func attributes(identifying reference: AnyObject) throws(EngineError) -> ItemAttributes {
        var attributes = ItemAttributes()
        let certificate: SecCertificate
        switch reference {
        case let key as SecKey:
            attributes[.keyClass] = .integer(
                key.isPrivate ? CredentialAttributes.privateKeyClass : CredentialAttributes.publicKeyClass)
            attributes[.applicationLabel] = .data(try CredentialAttributes.applicationLabel(of: key.key))
            return attributes
        case let identity as SecIdentity: certificate = identity.certificate
        case let given as SecCertificate: certificate = given
        default: throw EngineError(.param, "kSecValueRef holds \(FoundationValue.describe(reference))")
        }
        let made = try CredentialAttributes.certificate(certificate.certificate, given: [:])
        for attribute in ItemClass.certificate.primaryKey { attributes[attribute] = made.attributes[attribute] }
        return attributes
    }

    /// The identities a certificate query finds: each certificate it matches (all of them, the limit applies to the
    /// identities) joined with the private key whose `klbl` is the certificate's `pkhh`, in any group the caller may
    /// read; a certificate without its key is no identity.
    static func identities(
        certificates query: ItemQuery, keyAttributes: ItemAttributes, backend: any KeychainBackend, caller: Caller
    ) throws(EngineError) -> [(certificate: Item, privateKey: Item)] {
        var certificateQuery = query
        certificateQuery.limit = .all
        certificateQuery.returning.formUnion([.attributes, .data])
        let certificates = try backend.copyMatching(certificateQuery, for: caller)
        var found: [(certificate: Item, privateKey: Item)] = []
        for certificate in certificates {
            guard let hash = certificate.attributes[.publicKeyHash] else { continue }
            var keyQuery = ItemQuery(
                itemClass: .key, attributes: keyAttributes, synchronizable: .any, limit: .one,
                returning: query.returning.union([.attributes, .data]))
            keyQuery.attributes[.keyClass] = .integer(CredentialAttributes.privateKeyClass)
            keyQuery.attributes[.applicationLabel] = hash
            keyQuery.authentication = query.authentication
            do throws(EngineError) {
                guard let key = try backend.copyMatching(keyQuery, for: caller).first else { continue }
                found.append((certificate, key))
            } catch  where error.code == .itemNotFound {
                continue
            }
            if found.count >= (query.limit ?? .one).maximum { break }
        }
        guard !found.isEmpty else {
            throw EngineError(.itemNotFound, "no certificate matching the query has its private key in the keychain")
        }
        return found
    }
}
