import CLibCrypto
import Foundation
import KeychainCore

/// An X.509 certificate held by libcrypto (an `X509`, freed with the value): the layer under `SecCertificate`.
/// Immutable, so it may be shared.
package final class Certificate: @unchecked Sendable {
    let handle: OpaquePointer
    /// The certificate's DER, as it was given.
    package let der: Data

    /// A certificate from its DER encoding; anything else, or bytes after it, is errSecParam (Apple answers `nil`).
    package init(der: Data) throws(EngineError) {
        let parsed: OpaquePointer? = der.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let certificate = d2i_X509(nil, &cursor, bytes.count)
            guard let certificate, cursor == base + bytes.count else {
                if let certificate { X509_free(certificate) }
                return nil
            }
            return certificate
        }
        guard let parsed else {
            ERR_clear_error()
            throw EngineError(.param, "\(der.count) bytes are not a DER X.509 certificate")
        }
        handle = parsed
        self.der = der
    }

    /// Adopts an `X509` (from a PKCS#12 file), reading its DER.
    init(adopting certificate: OpaquePointer) throws(EngineError) {
        handle = certificate
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &output)
        guard length > 0, let output else {
            // A failed initializer runs no deinit: the certificate is freed here.
            X509_free(certificate)
            throw OpenSSLFailure.error(.decode, "write a certificate's DER")
        }
        defer { CRYPTO_free(output, #fileID, #line) }
        der = Data(bytes: output, count: Int(length))
    }

    deinit { X509_free(handle) }

    /// The subject's common names (`CN`), in order.
    package var commonNames: [String] { Self.entries(of: X509_get_subject_name(handle), nid: NID_commonName) }

    /// The subject's e-mail addresses (its `emailAddress` attributes), then the subject alternative name's
    /// `rfc822Name`s, each once.
    package var emailAddresses: [String] {
        var addresses = Self.entries(of: X509_get_subject_name(handle), nid: NID_pkcs9_emailAddress)
        if let names = X509_get_ext_d2i(handle, NID_subject_alt_name, nil, nil) {
            let list = OpaquePointer(names)
            defer { GENERAL_NAMES_free(list) }
            for index in 0..<OPENSSL_sk_num(list) {
                guard let name = OPENSSL_sk_value(list, index)?.assumingMemoryBound(to: GENERAL_NAME.self),
                    name.pointee.type == GEN_EMAIL, let text = Self.text(of: UnsafePointer(name.pointee.d.rfc822Name))
                else { continue }
                if !addresses.contains(text) { addresses.append(text) }
            }
        }
        return addresses
    }

    /// A short description of the subject, as Apple's `SecCertificateCopySubjectSummary` gives one: its last common
    /// name, else its first e-mail address, else its organisation or unit.
    package var subjectSummary: String? {
        if let name = commonNames.last { return name }
        if let address = emailAddresses.first { return address }
        let subject = X509_get_subject_name(handle)
        return Self.entries(of: subject, nid: NID_organizationName).first
            ?? Self.entries(of: subject, nid: NID_organizationalUnitName).first
    }

    /// The serial number's DER content octets (the INTEGER without its tag and length, as Apple returns it).
    package var serialNumber: Data? {
        guard let serial = X509_get0_serialNumber(handle) else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ASN1_INTEGER(serial, &output)
        guard length > 2, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        let der = [UInt8](UnsafeBufferPointer(start: output, count: Int(length)))
        // The tag, then a short or long length.
        let lengthBytes = der[1] < 0x80 ? 1 : 1 + Int(der[1] & 0x7F)
        guard 1 + lengthBytes <= der.count else { return nil }
        return Data(der[(1 + lengthBytes)...])
    }

    /// The DER of the issuer's and the subject's names, as encoded in the certificate.
    package var issuerDER: Data? { Self.der(of: X509_get_issuer_name(handle)) }
    package var subjectDER: Data? { Self.der(of: X509_get_subject_name(handle)) }

    /// The subject key identifier extension's octets, when the certificate has one.
    package var subjectKeyIdentifier: Data? {
        guard let identifier = X509_get0_subject_key_id(handle), let bytes = ASN1_STRING_get0_data(identifier)
        else { return nil }
        return Data(bytes: bytes, count: Int(ASN1_STRING_length(identifier)))
    }

    /// The certified public key.
    package func publicKey() throws(EngineError) -> AsymmetricKey {
        guard let key = X509_get_pubkey(handle) else {
            throw OpenSSLFailure.error(.unimplemented, "read the certificate's public key")
        }
        return try AsymmetricKey.adopting(key, isPrivate: false)
    }

    /// Whether this certificate certifies `key`'s public half.
    package func certifies(_ key: AsymmetricKey) -> Bool {
        guard let certified = try? publicKey().publicRepresentation(), let other = try? key.publicRepresentation()
        else { return false }
        return certified == other
    }

    private static func entries(of name: OpaquePointer?, nid: Int32) -> [String] {
        guard let name else { return [] }
        var values: [String] = []
        var index: Int32 = -1
        while true {
            index = X509_NAME_get_index_by_NID(name, nid, index)
            guard index >= 0, let entry = X509_NAME_get_entry(name, index),
                let text = text(of: UnsafePointer(X509_NAME_ENTRY_get_data(entry)))
            else { break }
            values.append(text)
        }
        return values
    }

    /// An ASN.1 string as UTF-8 text.
    private static func text(of string: UnsafePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }

    private static func der(of name: OpaquePointer?) -> Data? {
        guard let name else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_NAME(name, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Data(bytes: output, count: Int(length))
    }
}
