import Foundation
import Security
import TestSupport
import Testing

/// Certificates and PKCS#12 files the `openssl` command made, read with Apple's functions.
@Suite(
    "SecCertificate, SecIdentity and SecPKCS12Import on files the openssl command made",
    .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct SecCertificateTests {

    /// A self-signed P-256 certificate with two e-mail addresses, in `directory`: (key PEM, certificate PEM).
    private func makeCertificate(in directory: TemporaryDirectory) throws -> (String, String) {
        let key = directory.file("key.pem").path
        let certificate = directory.file("cert.pem").path
        try OpenSSLCommand.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
            certificate, "-days", "1", "-subj", "/O=Example Org/CN=Test Certificate/emailAddress=one@example.com",
            "-addext", "subjectAltName=email:two@example.com",
        ])
        return (key, certificate)
    }

    @Test("A DER certificate: its data, summary, common name, e-mails, serial and key, as openssl reads them")
    func certificate() throws {
        let directory = try TemporaryDirectory()
        let (keyPath, certificatePath) = try makeCertificate(in: directory)
        let derPath = directory.file("cert.der").path
        try OpenSSLCommand.run(["x509", "-in", certificatePath, "-outform", "DER", "-out", derPath])
        let der = try Data(contentsOf: URL(fileURLWithPath: derPath))
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
        #expect(SecCertificateCopyData(certificate) as Data == der)
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == "Test Certificate")
        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess)
        #expect(commonName as String? == "Test Certificate")
        var emails: CFArray?
        #expect(SecCertificateCopyEmailAddresses(certificate, &emails) == errSecSuccess)
        #expect(emails as? [String] == ["one@example.com", "two@example.com"])
        // The serial openssl prints, as hex; Apple's data is the INTEGER's content (a leading 00 when the top bit is
        // set).
        let printed = try OpenSSLCommand.run(["x509", "-in", certificatePath, "-noout", "-serial"])
            .replacingOccurrences(of: "serial=", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        var error: Unmanaged<CFError>?
        let serial = try #require(SecCertificateCopySerialNumberData(certificate, &error) as Data?)
        let hex = serial.map { String(format: "%02X", $0) }.joined()
        #expect(hex == printed || hex == "00" + printed)
        // The certified key verifies what the matching private key signed with openssl.
        let key = try #require(SecCertificateCopyKey(certificate))
        let message = directory.file("message")
        try Data("signed by openssl".utf8).write(to: message)
        let signature = directory.file("signature")
        try OpenSSLCommand.run(["dgst", "-sha256", "-sign", keyPath, "-out", signature.path, message.path])
        #expect(
            SecKeyVerifySignature(
                key, .ecdsaSignatureMessageX962SHA256, try Data(contentsOf: message) as CFData,
                try Data(contentsOf: signature) as CFData, &error))
        // Not a certificate: nil. PEM is not DER.
        #expect(SecCertificateCreateWithData(nil, Data("junk".utf8) as CFData) == nil)
        #expect(
            SecCertificateCreateWithData(nil, try Data(contentsOf: URL(fileURLWithPath: certificatePath)) as CFData)
                == nil)
        #expect(SecCertificateCreateWithData(nil, (der + Data([0])) as CFData) == nil)
    }

    @Test(
        "SecPKCS12Import: the identity, its chain and label, from a modern and a legacy (RC2/3DES) file; a wrong passphrase is errSecAuthFailed",
        arguments: [false, true])
    func pkcs12(legacy: Bool) throws {
        let directory = try TemporaryDirectory()
        let (keyPath, certificatePath) = try makeCertificate(in: directory)
        let file = directory.file("identity.p12").path
        try OpenSSLCommand.run(
            [
                "pkcs12", "-export", "-inkey", keyPath, "-in", certificatePath, "-name", "My Identity", "-passout",
                "pass:s3cret", "-out", file,
            ] + (legacy ? ["-legacy"] : []))
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var items: CFArray?
        let status = SecPKCS12Import(
            data as CFData, [kSecImportExportPassphrase as String: "s3cret"] as CFDictionary, &items)
        #expect(status == errSecSuccess)
        let item = try #require((items as? [[String: Any]])?.first)
        #expect(item[kSecImportItemLabel as String] as? String == "My Identity")
        let identity = try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
        var certificate: SecCertificate?
        var privateKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(chain.first == certificate)
        // The key is the certificate's: what it signs, the certificate's key verifies.
        var error: Unmanaged<CFError>?
        let message = Data("from the identity".utf8) as CFData
        let key = try #require(privateKey)
        let signature = try #require(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error))
        let ownCertificate = try #require(certificate)
        let certified = try #require(SecCertificateCopyKey(ownCertificate))
        #expect(SecKeyVerifySignature(certified, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
        // A wrong passphrase, no passphrase, not a PKCS#12 file.
        #expect(
            SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: "wrong"] as CFDictionary, &items)
                == errSecAuthFailed)
        #expect(SecPKCS12Import(data as CFData, [:] as CFDictionary, &items) == errSecParam)
        #expect(
            SecPKCS12Import(
                Data("junk".utf8) as CFData, [kSecImportExportPassphrase as String: "x"] as CFDictionary, &items)
                == errSecDecode)
    }
}
