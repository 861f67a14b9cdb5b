import Foundation
import KeychainCore
import KeychainKeys
import KeychainPrompts

/// A certificate with the private key of its public key (Apple's `SecIdentityRef`), as a PKCS#12 file carries one.
public final class SecIdentity: Hashable, Sendable {
    let certificate: SecCertificate
    let privateKey: SecKey

    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Whether two identities hold the same certificate and key.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    /// Hashes the certificate.
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }
}

/// The identity's certificate, in `certificateRef`.
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// The identity's private key, in `privateKeyRef`.
public func SecIdentityCopyPrivateKey(
    _ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>
) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

/// The identity of a certificate: the private key whose application label (`klbl`) is the certificate's public-key
/// hash, found in the current keychain (`keychainOrArray` is ignored: there is one). No such key is
/// errSecItemNotFound.
public func SecIdentityCreateWithCertificate(
    _ keychainOrArray: CFTypeRef?, _ certificateRef: SecCertificate, _ identityRef: UnsafeMutablePointer<SecIdentity?>
) -> OSStatus {
    identityRef.pointee = nil
    do throws(EngineError) {
        let certificate = certificateRef.certificate
        let keychain = try SecItemKeychain.current()
        let query = ItemQuery(
            itemClass: .key,
            attributes: [
                .keyClass: .integer(CredentialAttributes.privateKeyClass),
                .applicationLabel: .data(try CredentialAttributes.applicationLabel(of: certificate.publicKey())),
            ],
            synchronizable: .any, limit: .one, returning: [.attributes, .data])
        let options = AuthenticationLoop.Options()
        let items = try AuthenticationLoop.perform(options, backend: keychain.backend) {
            (authentication) throws(EngineError) -> [Item] in
            var query = query
            query.authentication = authentication
            return try keychain.backend.copyMatching(query, for: keychain.caller)
        }
        guard let item = items.first else { throw EngineError(.itemNotFound, "no private key for the certificate") }
        let privateKey = try CredentialAttributes.secKey(of: item, keychain: keychain, authentication: options)
        identityRef.pointee = SecIdentity(certificate: certificateRef, privateKey: privateKey)
        LastErrorMessage.record(nil)
        return errSecSuccess
    } catch {
        LastErrorMessage.record(error.message)
        return error.code.rawValue
    }
}

/// The passphrase of a PKCS#12 file, in `SecPKCS12Import`'s options.
public nonisolated(unsafe) let kSecImportExportPassphrase: CFString = "passphrase"
/// An imported item's identity (`SecIdentity`).
public nonisolated(unsafe) let kSecImportItemIdentity: CFString = "identity"
/// An imported item's certificate chain (`[SecCertificate]`, its own certificate first).
public nonisolated(unsafe) let kSecImportItemCertChain: CFString = "chain"
/// An imported item's friendly name.
public nonisolated(unsafe) let kSecImportItemLabel: CFString = "label"
/// An imported item's local key ID.
public nonisolated(unsafe) let kSecImportItemKeyID: CFString = "keyid"
/// An imported item's trust (not built: never present).
public nonisolated(unsafe) let kSecImportItemTrust: CFString = "trust"

/// Reads a PKCS#12 file: one dictionary in `items` for its identity (`kSecImportItemIdentity`, the chain, the label
/// and key ID when the file has them). The passphrase is `kSecImportExportPassphrase` in `options`; a wrong one is
/// errSecAuthFailed, data that is not PKCS#12 errSecDecode, a missing passphrase errSecParam. Nothing is stored in
/// the keychain (as on iOS).
public func SecPKCS12Import(
    _ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    do throws(EngineError) {
        var values: [String: Any] = [:]
        for (key, value) in try SecItemDictionary.entries(of: options) { values[key] = value }
        guard let given = values[kSecImportExportPassphrase as String] else {
            throw EngineError(.param, "the passphrase (kSecImportExportPassphrase) is missing")
        }
        let passphrase = try FoundationValue.requireString(given, for: kSecImportExportPassphrase as String)
        let contents = try PKCS12Contents.read(pkcs12_data as Data, passphrase: passphrase)
        let certificate = SecCertificate(contents.certificate)
        let identity = SecIdentity(certificate: certificate, privateKey: try SecKey(key: contents.privateKey))
        var item: [String: Any] = [
            kSecImportItemIdentity as String: identity,
            kSecImportItemCertChain as String: [certificate] + contents.chain.map(SecCertificate.init),
        ]
        if let label = contents.label { item[kSecImportItemLabel as String] = label }
        if let keyID = contents.keyID { item[kSecImportItemKeyID as String] = keyID }
        items.pointee = NSArray(array: [NSDictionary(dictionary: item)])
        LastErrorMessage.record(nil)
        return errSecSuccess
    } catch {
        LastErrorMessage.record(error.message)
        return error.code.rawValue
    }
}
