import Foundation
import Security
import TestSupport
import Testing

// Key code in the style of the popular Swift RSA/EC wrapper libraries (PEM armour stripped by hand, an X.509
// header cut off an RSA public key, `SecKeyCreateWithData` around the DER, the `SecKey…` functions after), written as
// apps carry it: it compiles unchanged with `import Security` and runs against keys the `openssl` command made.

/// A wrapper's PEM reader: the base64 between the armour lines.
private func derFromPEM(_ pem: String) -> Data? {
    let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty }.joined()
    return Data(base64Encoded: body)
}

/// A wrapper's X.509 header stripper (SubjectPublicKeyInfo → PKCS#1 RSAPublicKey), as SwiftyRSA-style code does it:
/// skip to the BIT STRING, then past its length and the unused-bits byte.
private func stripX509Header(_ keyData: Data) -> Data? {
    let bytes = [UInt8](keyData)
    var index = 0
    guard bytes.count > 2, bytes[index] == 0x30 else { return nil }
    index += 1
    index += bytes[index] > 0x80 ? Int(bytes[index]) - 0x80 + 1 : 1
    guard bytes[index] == 0x30 else { return nil }  // the algorithm identifier
    index += Int(bytes[index + 1]) + 2
    guard bytes[index] == 0x03 else { return nil }  // the BIT STRING
    index += 1
    index += bytes[index] > 0x80 ? Int(bytes[index]) - 0x80 + 1 : 1
    guard bytes[index] == 0 else { return nil }
    index += 1
    return Data(bytes[index...])
}

private func secKey(_ der: Data, type: CFString, keyClass: CFString) -> SecKey? {
    let options: [String: Any] = [
        kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass, kSecAttrKeySizeInBits as String: 2048,
    ]
    var error: Unmanaged<CFError>?
    return SecKeyCreateWithData(der as CFData, options as CFDictionary, &error)
}

@Suite(
    "SecKey: wrapper-style key code, against keys the openssl command made",
    .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct KeyWrapperFixtureTests {

    @Test("An RSA key from PEM (PKCS#1 private, X.509 public): this signs and encrypts, openssl verifies and decrypts")
    func rsaFromPEM() throws {
        let directory = try TemporaryDirectory()
        let privatePath = directory.file("private.pem").path
        let publicPath = directory.file("public.pem").path
        try OpenSSLCommand.run(["genrsa", "-traditional", "-out", privatePath, "2048"])
        try OpenSSLCommand.run(["rsa", "-in", privatePath, "-pubout", "-out", publicPath])
        let privatePEM = try String(contentsOfFile: privatePath, encoding: .utf8)
        let publicPEM = try String(contentsOfFile: publicPath, encoding: .utf8)
        let privateKey = try #require(
            derFromPEM(privatePEM).flatMap { secKey($0, type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPrivate) })
        let publicKey = try #require(
            derFromPEM(publicPEM).flatMap(stripX509Header).flatMap {
                secKey($0, type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPublic)
            })
        #expect(SecKeyCopyPublicKey(privateKey) == publicKey)
        let message = Data("signed in Swift, checked by openssl".utf8)
        var error: Unmanaged<CFError>?
        let signature = try #require(
            SecKeyCreateSignature(privateKey, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, &error) as Data?)
        try message.write(to: directory.file("message"))
        try signature.write(to: directory.file("signature"))
        let verified = try OpenSSLCommand.run(
            [
                "dgst", "-sha256", "-verify", publicPath, "-signature", directory.file("signature").path,
                directory.file("message").path,
            ])
        #expect(verified.contains("Verified OK"))
        let ciphertext = try #require(
            SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA1, message as CFData, &error) as Data?)
        try ciphertext.write(to: directory.file("ciphertext"))
        let opened = try OpenSSLCommand.run(
            [
                "pkeyutl", "-decrypt", "-inkey", privatePath, "-in", directory.file("ciphertext").path, "-pkeyopt",
                "rsa_padding_mode:oaep",
            ])
        #expect(opened == String(decoding: message, as: UTF8.self))
    }
}
