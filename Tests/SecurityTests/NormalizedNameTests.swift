import Foundation
import Security
import TestSupport
import Testing

/// Names as Apple's keychain compares them: `SecCertificateCopyNormalizedIssuerSequence` and `…SubjectSequence`, a
/// certificate item's `issr` and `subj` (the normalized content), and a query by issuer given as a whole name.
@Suite(
    "Normalized issuer and subject: two encodings of one name are one name",
    .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct NormalizedNameTests {
    /// A self-signed certificate whose name is `subject`, its values PrintableString (openssl's `string_mask =
    /// default`; Debian's configuration asks for UTF8String).
    private func certificate(_ subject: String, in directory: TemporaryDirectory, name: String) throws -> SecCertificate
    {
        let configuration = directory.file("\(name).cnf")
        try Data("[req]\ndistinguished_name = dn\nstring_mask = default\n[dn]\n".utf8).write(to: configuration)
        let pem = directory.file("\(name).pem").path
        let der = directory.file("\(name).der").path
        try OpenSSLCommand.run([
            "req", "-config", configuration.path, "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", directory.file("\(name).key").path, "-out", pem, "-days", "1", "-subj", subject,
        ])
        try OpenSSLCommand.run(["x509", "-in", pem, "-outform", "DER", "-out", der])
        return try #require(
            SecCertificateCreateWithData(nil, try Data(contentsOf: URL(fileURLWithPath: der)) as CFData))
    }

    @Test("Case and blanks of PrintableString values do not matter; the sequence is DER and normalizes to itself")
    func sequences() throws {
        let directory = try TemporaryDirectory()
        let spaced = try certificate("/O=Example   org/CN= Test  Certificate ", in: directory, name: "a")
        let upper = try certificate("/O=EXAMPLE ORG/CN=TEST CERTIFICATE", in: directory, name: "b")
        let other = try certificate("/O=Example org/CN=Another", in: directory, name: "c")
        let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(spaced) as Data?)
        #expect(issuer.first == 0x30)
        #expect(SecCertificateCopyNormalizedIssuerSequence(upper) as Data? == issuer)
        #expect(SecCertificateCopyNormalizedSubjectSequence(spaced) as Data? == issuer, "self-signed")
        #expect(SecCertificateCopyNormalizedIssuerSequence(other) as Data? != issuer)
        // The normalized form holds the upper-cased, collapsed text.
        #expect(issuer.range(of: Data("EXAMPLE ORG".utf8)) != nil)
        #expect(issuer.range(of: Data("TEST CERTIFICATE".utf8)) != nil)
    }

    @Test("A certificate item is found by an issuer given as another encoding of its name, and its issr is the content")
    func itemFoundByIssuer() throws {
        let keychain = try TestSecItemKeychain()
        let directory = try TemporaryDirectory()
        let stored = try certificate("/O=Example   org/CN= Test  Certificate ", in: directory, name: "a")
        let spelled = try certificate("/O=EXAMPLE ORG/CN=TEST CERTIFICATE", in: directory, name: "b")
        let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(spelled) as Data?)
        try keychain.run {
            let added = SecItemAdd(
                [kSecClass as String: kSecClassCertificate, kSecValueRef as String: stored] as CFDictionary, nil)
            #expect(added == errSecSuccess)
            var result: CFTypeRef?
            let status = SecItemCopyMatching(
                [
                    kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: issuer,
                    kSecReturnAttributes as String: true, kSecReturnRef as String: true,
                ] as CFDictionary, &result)
            #expect(status == errSecSuccess)
            let attributes = try #require(result as? [String: Any])
            #expect(attributes[kSecValueRef as String] as? SecCertificate == stored)
            // Apple's `issr`: the normalized name without its outer SEQUENCE.
            let content = try #require(attributes[kSecAttrIssuer as String] as? Data)
            #expect(issuer.suffix(content.count) == content && content.count < issuer.count)
        }
    }
}
