import Foundation
import KeychainCore
import KeychainKeys

/// An X.509 certificate stored in the keychain (`kSecClassCertificate`).
public struct KeychainCertificate: Sendable, Hashable {
    /// The certificate's DER.
    public var der: Data
    /// A user-visible label (`labl`; the subject summary unless another was given).
    public var label: String?
    /// The subject's summary: its common name, else an e-mail address, else its organisation.
    public var subjectSummary: String?
    /// The subject's common names.
    public var commonNames: [String]
    /// The subject's e-mail addresses.
    public var emailAddresses: [String]
    /// The serial number's octets.
    public var serialNumber: Data
    /// The SHA-1 of the certified public key (`pkhh`): its private key's application label.
    public var publicKeyHash: Data
    /// The access group (`agrp`).
    public var accessGroup: String?
    /// The item's persistent reference.
    public internal(set) var persistentReference: Data

    /// The certificate an item holds (its data is needed).
    init(_ item: Item) throws(EngineError) {
        guard let der = item.data, !der.isEmpty else {
            throw EngineError(.internalComponent, "the certificate item was read without its data")
        }
        let certificate = try Certificate(der: der)
        self.der = der
        label = item.attributes.string(.label)
        subjectSummary = certificate.subjectSummary
        commonNames = certificate.commonNames
        emailAddresses = certificate.emailAddresses
        serialNumber = item.attributes[.serialNumber]?.dataValue ?? Data()
        publicKeyHash = item.attributes[.publicKeyHash]?.dataValue ?? Data()
        accessGroup = item.attributes.string(.accessGroup)
        persistentReference = item.persistentReference.data
    }

    /// The SHA-1 of the DER: the hash macOS's `security` shows for a certificate.
    public var sha1: Data { (try? Digest.sha1.hash(der)) ?? Data() }
    /// The SHA-256 of the DER.
    public var sha256: Data { (try? Digest.sha256.hash(der)) ?? Data() }

    /// The DER in PEM armour (`-----BEGIN CERTIFICATE-----`).
    public var pem: String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }
}

/// A certificate stored with the private key of its public key (Apple's identity).
public struct KeychainIdentity: Sendable, Hashable {
    /// The certificate.
    public var certificate: KeychainCertificate
    /// Its private key.
    public var privateKey: KeychainKey
}
