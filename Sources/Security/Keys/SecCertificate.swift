import Foundation
import KeychainCore
import KeychainKeys

/// An X.509 certificate (Apple's `SecCertificateRef`), made from its DER. Immutable; two are equal when their DER is.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    let certificate: Certificate

    init(_ certificate: Certificate) { self.certificate = certificate }

    /// Whether two certificates are the same (the same DER).
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool {
        lhs.certificate.der == rhs.certificate.der
    }

    /// Hashes the DER.
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate.der) }

    /// `<cert(…)> s: <subject summary>`, in Apple's manner.
    public var description: String { "<cert> s: \(certificate.subjectSummary ?? "?")" }
}

/// A certificate from its DER encoding, or `nil` when the data is not one (PEM must be decoded first, as on iOS).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    do throws(EngineError) {
        let certificate = SecCertificate(try Certificate(der: data as Data))
        LastErrorMessage.record(nil)
        return certificate
    } catch {
        LastErrorMessage.record(error.message)
        return nil
    }
}

/// The certificate's DER.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: certificate.certificate.der)
}

/// A human-readable summary of the subject: its common name, else an e-mail address, else its organisation.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.certificate.subjectSummary.map { NSString(string: $0) }
}

/// The subject's common name (the last `CN`, the most specific), in `commonName`.
public func SecCertificateCopyCommonName(
    _ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>
) -> OSStatus {
    guard let name = certificate.certificate.commonNames.last else {
        commonName.pointee = nil
        return errSecNoSuchAttr
    }
    commonName.pointee = NSString(string: name)
    return errSecSuccess
}

/// The subject's e-mail addresses (its `emailAddress` attributes and the alternative name's), in `emailAddresses`.
public func SecCertificateCopyEmailAddresses(
    _ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    emailAddresses.pointee = NSArray(array: certificate.certificate.emailAddresses.map { NSString(string: $0) })
    return errSecSuccess
}

/// The serial number's DER content octets.
public func SecCertificateCopySerialNumberData(
    _ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let serial = certificate.certificate.serialNumber else {
        CFErrorOut.report(EngineError(.decode, "the certificate's serial number cannot be read"), to: error)
        return nil
    }
    return NSData(data: serial)
}

/// The certificate's issuer name, normalized as Apple's keychain compares names (PrintableString values upper-cased,
/// their blanks collapsed), as a DER SEQUENCE; `nil` when the name cannot be read.
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    certificate.certificate.issuerDER.flatMap(DistinguishedName.normalizedSequence(of:)).map { NSData(data: $0) }
}

/// The certificate's subject name, normalized as ``SecCertificateCopyNormalizedIssuerSequence(_:)`` normalizes the
/// issuer's.
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    certificate.certificate.subjectDER.flatMap(DistinguishedName.normalizedSequence(of:)).map { NSData(data: $0) }
}

/// The certified public key, or `nil` when it is not an RSA or NIST-curve key.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    guard let key = try? certificate.certificate.publicKey() else { return nil }
    return try? SecKey(key: key)
}
