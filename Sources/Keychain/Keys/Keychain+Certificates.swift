import Foundation
import KeychainCore
import KeychainKeys

/// Certificates and identities, typed.
extension Keychain {
    /// Stores a certificate (its DER) and returns it as stored; the keychain's access group and accessibility apply.
    /// Throws ``KeychainError/duplicateItem`` when the same issuer and serial number are stored already.
    @discardableResult
    public func add(certificate der: Data, label: String? = nil) throws(KeychainError) -> KeychainCertificate {
        try perform("cannot store the certificate") { (connection, caller) throws(EngineError) in
            var given = ItemAttributes()
            given[.accessible] = .string(accessibility.protectionClass.rawValue)
            if let accessGroup { given[.accessGroup] = .string(accessGroup) }
            if let label = label ?? self.label { given[.label] = .string(label) }
            let made = try CredentialAttributes.certificate(try Certificate(der: der), given: given)
            let item = try connection.backend().add(
                NewItem(itemClass: .certificate, attributes: made.attributes, data: made.data), for: caller)
            return try KeychainCertificate(item)
        }
    }

    /// Stores the identity of a PKCS#12 file (its private key, not extractable by default, and its certificate,
    /// all or nothing) and the rest of its chain's certificates that are not stored yet; returns the identity. A
    /// wrong passphrase is ``KeychainError/authFailed``.
    @discardableResult
    public func importPKCS12(
        _ data: Data, passphrase: String, isExtractable: Bool = false
    ) throws(KeychainError) -> KeychainIdentity {
        try perform("cannot import the PKCS#12 file") { (connection, caller) throws(EngineError) -> KeychainIdentity in
            let contents = try PKCS12Contents.read(data, passphrase: passphrase)
            var given = ItemAttributes()
            given[.accessible] = .string(accessibility.protectionClass.rawValue)
            if let accessGroup { given[.accessGroup] = .string(accessGroup) }
            var keyGiven = given
            keyGiven[.isExtractable] = .bool(isExtractable)
            if let label = label ?? contents.label ?? contents.certificate.subjectSummary {
                keyGiven[.label] = .string(label)
            }
            let key = try CredentialAttributes.key(contents.privateKey, given: keyGiven, tag: nil, label: nil)
            let certificate = try CredentialAttributes.certificate(contents.certificate, given: given)
            let backend = try connection.backend()
            let stored = try backend.add(
                [
                    NewItem(itemClass: .key, attributes: key.attributes, data: key.data),
                    NewItem(itemClass: .certificate, attributes: certificate.attributes, data: certificate.data),
                ], for: caller)
            for authority in contents.chain {
                let made = try CredentialAttributes.certificate(authority, given: given)
                do throws(EngineError) {
                    _ = try backend.add(
                        NewItem(itemClass: .certificate, attributes: made.attributes, data: made.data), for: caller)
                } catch  where error.code == .duplicateItem {
                    continue
                }
            }
            let storedCertificate = try KeychainCertificate(
                Item(
                    itemClass: .certificate, attributes: stored[1].attributes, data: certificate.data,
                    persistentReference: stored[1].persistentReference))
            return KeychainIdentity(
                certificate: storedCertificate,
                privateKey: try KeychainKey(stored[0], publicKey: try contents.privateKey.publicRepresentation()))
        }
    }

    /// The certificates the caller may see, optionally only those whose label or subject contains `name`.
    public func certificates(named name: String? = nil) throws(KeychainError) -> [KeychainCertificate] {
        let query = ItemQuery(
            itemClass: .certificate, synchronizable: .any, limit: .all, returning: [.attributes, .data])
        return try perform("cannot list the certificates") {
            (connection, caller) throws(EngineError) -> [KeychainCertificate] in
            let items: [Item]
            do throws(EngineError) {
                items = try connection.backend().copyMatching(query, for: caller)
            } catch  where KeychainError.isNotFound(error) {
                return []
            }
            return try items.map(KeychainCertificate.init).filter { certificate in
                guard let name else { return true }
                return (certificate.label ?? "").contains(name)
                    || certificate.commonNames.contains { $0.contains(name) }
                    || certificate.emailAddresses.contains { $0.contains(name) }
            }
        }
    }

    /// Removes a certificate; returns whether it was there.
    @discardableResult
    public func remove(_ certificate: KeychainCertificate) throws(KeychainError) -> Bool {
        try perform("cannot remove the certificate") { (connection, caller) throws(EngineError) -> Bool in
            guard let reference = PersistentReference(data: certificate.persistentReference) else {
                throw EngineError(.param, "the certificate's persistent reference is not one")
            }
            do throws(EngineError) {
                let query = ItemQuery(itemClass: .certificate, synchronizable: .any, persistentReference: reference)
                return try connection.backend().delete(query, for: caller) > 0
            } catch  where KeychainError.isNotFound(error) {
                return false
            }
        }
    }

    /// The identities: each stored certificate whose private key (the key whose application label is the
    /// certificate's public-key hash) is stored too.
    public func identities(named name: String? = nil) throws(KeychainError) -> [KeychainIdentity] {
        let certificates = try certificates(named: name)
        let privateKeys = try keys().filter(\.isPrivate)
        return certificates.compactMap { certificate in
            privateKeys.first { $0.applicationLabel == certificate.publicKeyHash }.map {
                KeychainIdentity(certificate: certificate, privateKey: $0)
            }
        }
    }
}
