import Foundation
import KeychainCore
import Security
import TestSupport
import Testing

/// Keys, certificates and identities stored in the keychain (`kSecClassKey`, `kSecClassCertificate`,
/// `kSecClassIdentity`) as iOS code stores and finds them.
@Suite(
    "Key, certificate and identity items",
    .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct KeyItemTests {

    /// A PKCS#12 file with a self-signed P-256 identity that openssl made, imported with `SecPKCS12Import`.
    private func importedIdentity(in directory: TemporaryDirectory, name: String = "Client") throws -> SecIdentity {
        let key = directory.file("\(name).key").path
        let certificate = directory.file("\(name).pem").path
        let file = directory.file("\(name).p12").path
        try OpenSSLCommand.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
            certificate, "-days", "1", "-subj", "/O=Example/CN=\(name)",
        ])
        try OpenSSLCommand.run([
            "pkcs12", "-export", "-inkey", key, "-in", certificate, "-passout", "pass:pw", "-out", file,
        ])
        var items: CFArray?
        let status = SecPKCS12Import(
            try Data(contentsOf: URL(fileURLWithPath: file)) as CFData,
            [kSecImportExportPassphrase as String: "pw"] as CFDictionary, &items)
        #expect(status == errSecSuccess)
        let item = try #require((items as? [[String: Any]])?.first)
        return try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
    }

    private func generate(_ parameters: [String: Any]) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        #expect(error == nil, "\(String(describing: error?.takeRetainedValue()))")
        return try #require(key)
    }

    @Test("A permanent key pair is stored (both halves), found by tag as a SecKey that signs, and is a duplicate")
    func permanentKeyPair() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let tag = Data("com.example.keys.signing".utf8)
            let privateKey = try generate([
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrIsPermanent as String: true, kSecAttrLabel as String: "Signing key",
                kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: tag],
            ])
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecReturnRef as String: true,
            ]
            let found = copy(query)
            #expect(found.status == errSecSuccess, "\(found.message ?? "")")
            let key = try #require(found.result as? SecKey)
            #expect(key == privateKey)
            var error: Unmanaged<CFError>?
            let message = Data("signed by the stored key".utf8) as CFData
            let signature = try #require(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error))
            let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
            #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
            // The public half is stored too (without the private half's tag), found by its class and label.
            let publicQuery: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                kSecAttrLabel as String: "Signing key", kSecReturnRef as String: true,
            ]
            #expect(copy(publicQuery).result as? SecKey == publicKey)
            // Apple's attributes, as numbers; the application label is the SHA-1 of the public key.
            var attributesQuery = query
            attributesQuery[kSecReturnRef as String] = nil
            attributesQuery[kSecReturnAttributes as String] = true
            let attributes = try #require(copy(attributesQuery).result as? [String: Any])
            #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
            #expect(attributes[kSecAttrKeyType as String] as? Int == 73)
            #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
            #expect(attributes[kSecAttrCanSign as String] as? Bool == true)
            let copied = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
            #expect(attributes[kSecAttrApplicationLabel as String] as? Data != nil)
            #expect(
                attributes[kSecAttrApplicationLabel as String] as? Data
                    == copied[kSecAttrApplicationLabel as String] as? Data)
            // The same key again is a duplicate (Apple's primary key: class, label, tag, type, sizes).
            let again = add([
                kSecClass as String: kSecClassKey, kSecValueRef as String: privateKey,
                kSecAttrApplicationTag as String: tag,
            ])
            #expect(again.status == errSecDuplicateItem)
            // Deleting by reference deletes that half only.
            #expect(
                delete([kSecClass as String: kSecClassKey, kSecValueRef as String: privateKey]).status == errSecSuccess)
            #expect(copy(query).status == errSecItemNotFound)
            #expect(copy(publicQuery).status == errSecSuccess)
        }
    }

    @Test("A key added as data needs its class and type (errSecParam naming them); the data is checked as a key")
    func keyAsData() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let key = try generate([
                kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
            ])
            var error: Unmanaged<CFError>?
            let bytes = try #require(SecKeyCopyExternalRepresentation(key, &error)) as Data
            let missing = add([kSecClass as String: kSecClassKey, kSecValueData as String: bytes])
            #expect(missing.status == errSecParam)
            #expect(missing.message?.contains("kSecAttrKeyClass") == true)
            let damaged = add([
                kSecClass as String: kSecClassKey, kSecValueData as String: Data(bytes.prefix(100)),
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            ])
            #expect(damaged.status == errSecParam)
            let added = add([
                kSecClass as String: kSecClassKey, kSecValueData as String: bytes,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                kSecAttrApplicationTag as String: "com.example.rsa", kSecReturnPersistentRef as String: true,
            ])
            #expect(added.status == errSecSuccess, "\(added.message ?? "")")
            // Found by the tag given as text or as its bytes, and by persistent reference.
            let byTag = copy([
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.example.rsa".utf8),
                kSecReturnData as String: true,
            ])
            #expect(byTag.result as? Data == bytes)
            let reference = try #require(added.result as? Data)
            #expect(
                copy([kSecValuePersistentRef as String: reference, kSecReturnRef as String: true]).result as? SecKey
                    == key)
        }
    }

    @Test("A certificate item: stored from its SecCertificate, found as one, Apple's attributes, a duplicate refused")
    func certificateItem() throws {
        let keychain = try TestSecItemKeychain()
        let directory = try TemporaryDirectory()
        let identity = try importedIdentity(in: directory)
        var certificateOut: SecCertificate?
        #expect(SecIdentityCopyCertificate(identity, &certificateOut) == errSecSuccess)
        let certificate = try #require(certificateOut)
        try keychain.run {
            let added = add([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate])
            #expect(added.status == errSecSuccess, "\(added.message ?? "")")
            #expect(
                add([kSecValueRef as String: certificate]).status == errSecDuplicateItem,
                "the class is taken from the reference, as Apple's")
            let found = copy([
                kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "Client",
                kSecReturnRef as String: true, kSecReturnAttributes as String: true,
            ])
            let dictionary = try #require(found.result as? [String: Any])
            #expect(dictionary[kSecValueRef as String] as? SecCertificate == certificate)
            #expect(dictionary["ctyp"] as? Int == 3)
            let serial = SecCertificateCopySerialNumberData(certificate, nil) as Data?
            #expect(dictionary["slnr"] as? Data == serial)
            #expect((dictionary["pkhh"] as? Data)?.count == 20)
            // Without its private key, the certificate is no identity.
            #expect(copy([kSecClass as String: kSecClassIdentity]).status == errSecItemNotFound)
        }
    }

    @Test("An identity: added as one, found by Apple's join as a SecIdentity whose key signs; deleting a half ends it")
    func identityJoin() throws {
        let keychain = try TestSecItemKeychain()
        let directory = try TemporaryDirectory()
        let identity = try importedIdentity(in: directory)
        let other = try importedIdentity(in: directory, name: "Other")
        try keychain.run {
            #expect(add([kSecValueRef as String: identity]).status == errSecSuccess)
            // Another identity's certificate alone, and another's key alone, make no identity.
            var otherCertificate: SecCertificate?
            var otherKey: SecKey?
            _ = SecIdentityCopyCertificate(other, &otherCertificate)
            _ = SecIdentityCopyPrivateKey(other, &otherKey)
            let firstOther = try #require(otherCertificate)
            #expect(add([kSecValueRef as String: firstOther]).status == errSecSuccess)
            let found = copy([
                kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ])
            #expect(found.status == errSecSuccess, "\(found.message ?? "")")
            let identities = try #require(found.result as? [SecIdentity])
            #expect(identities == [identity])
            var keyOut: SecKey?
            var certificateOut: SecCertificate?
            #expect(SecIdentityCopyPrivateKey(identities[0], &keyOut) == errSecSuccess)
            #expect(SecIdentityCopyCertificate(identities[0], &certificateOut) == errSecSuccess)
            let key = try #require(keyOut)
            let certificate = try #require(certificateOut)
            var error: Unmanaged<CFError>?
            let message = Data("client hello".utf8) as CFData
            let signature = try #require(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error))
            let certified = try #require(SecCertificateCopyKey(certificate))
            #expect(SecKeyVerifySignature(certified, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
            // SecIdentityCreateWithCertificate finds the same identity from the certificate alone.
            var made: SecIdentity?
            #expect(SecIdentityCreateWithCertificate(nil, certificate, &made) == errSecSuccess)
            #expect(made == identity)
            #expect(SecIdentityCreateWithCertificate(nil, firstOther, &made) == errSecItemNotFound)
            // Deleting the private key ends the identity; the certificate stays.
            #expect(delete([kSecValueRef as String: key]).status == errSecSuccess)
            #expect(copy([kSecClass as String: kSecClassIdentity]).status == errSecItemNotFound)
            #expect(copy([kSecValueRef as String: certificate]).status == errSecSuccess)
            // Deleting an identity deletes both halves.
            let secondKey = try #require(otherKey)
            let secondCertificate = try #require(otherCertificate)
            #expect(add([kSecValueRef as String: secondKey]).status == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassIdentity]).status == errSecSuccess)
            #expect(copy([kSecValueRef as String: secondKey]).status == errSecItemNotFound)
            #expect(copy([kSecValueRef as String: secondCertificate]).status == errSecItemNotFound)
        }
    }

    @Test("A copied disk: the private key's bytes appear nowhere in the keychain's files")
    func privateKeyNotInClear() throws {
        let keychain = try TestSecItemKeychain()
        let key = try keychain.run {
            try generate([
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrIsPermanent as String: true,
            ])
        }
        var error: Unmanaged<CFError>?
        let external = try #require(SecKeyCopyExternalRepresentation(key, &error)) as Data
        let scalar = external.suffix(32)
        let files = try FileManager.default.subpathsOfDirectory(atPath: keychain.directory.url.path)
        var scanned = 0
        for path in files {
            let url = keychain.directory.url.appendingPathComponent(path)
            guard let bytes = try? Data(contentsOf: url) else { continue }
            scanned += bytes.count
            #expect(bytes.range(of: scalar) == nil, "the private scalar is in clear in \(path)")
        }
        #expect(scanned > 0)
    }

    @Test("A locked keychain refuses its keys (errSecInteractionNotAllowed); another app's group does not see them")
    func lockedAndOtherGroups() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.engine.setPasscode("2468", current: nil)
        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecReturnRef as String: true]
        try keychain.run {
            _ = try generate([
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrIsPermanent as String: true, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
            ])
            #expect(copy(query).status == errSecSuccess)
        }
        let stranger = Caller(applicationIdentifier: "OTHER.com.example.b", accessGroups: ["OTHER.com.example.b"])
        keychain.run(as: stranger) { #expect(copy(query).status == errSecItemNotFound) }
        keychain.engine.lock()
        keychain.run { #expect(copy(query).status == errSecInteractionNotAllowed) }
    }
}
