import Foundation
import KeychainClient
import KeychainCore
import KeychainKeys
import KeychainTPM
import LocalAuthentication
import Security
import TestSupport
import Testing

/// "Secure Enclave" keys (`kSecAttrTokenIDSecureEnclave`), which live in the TPM (issue 26): each test has its own
/// keychain and its own software TPM.
@Suite(
    "Secure Enclave keys in the TPM",
    .enabled(if: secureEnclaveSkipReason == nil, Comment(rawValue: secureEnclaveSkipReason ?? "")))
struct SecureEnclaveKeyTests {
    @Test("an SE key signs in the TPM and openssl verifies the signature over its exported public key")
    func signsAndOpenSSLVerifies() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        let directory = try TemporaryDirectory()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                let made = SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "se"))
                let key = try #require(made.key, "\(made.message)")
                let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
                #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
                #expect(attributes[kSecAttrIsExtractable as String] as? Bool == false)
                var error: Unmanaged<CFError>?
                #expect(SecKeyCopyExternalRepresentation(key, &error) == nil, "the private key never leaves")
                #expect(SecureEnclaveTesting.status(error) == Int(errSecUnimplemented))
                let publicKey = try #require(SecKeyCopyPublicKey(key))
                let point = try #require(SecKeyCopyExternalRepresentation(publicKey, &error) as Data?)
                #expect(point.count == 65 && point.first == 0x04)
                // Found again by its tag, it is the same key, and says where it lives.
                let found = try #require(SecureEnclaveTesting.find("se").result as? SecKey)
                #expect(found == key)
                let foundAttributes = try #require(SecKeyCopyAttributes(found) as? [String: Any])
                #expect(foundAttributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
                let message = Data("pay 10 to Bob".utf8)
                let signature = try #require(
                    SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?)
                let publicFile = directory.file("public.der")
                try (SecureEnclaveTesting.publicKeyInfoHeader + point).write(to: publicFile)
                let messageFile = directory.file("message")
                try message.write(to: messageFile)
                let signatureFile = directory.file("signature.der")
                try signature.write(to: signatureFile)
                let verify = [
                    "dgst", "-sha256", "-verify", publicFile.path, "-keyform", "DER", "-signature",
                    signatureFile.path,
                ]
                #expect(try OpenSSLCommand.succeeds(verify + [messageFile.path]))
                let other = directory.file("other")
                try Data("pay 1000 to Bob".utf8).write(to: other)
                #expect(try !OpenSSLCommand.succeeds(verify + [other.path]))
                // The digest form, checked by SecKeyVerifySignature.
                let digest = try Digest.sha256.hash(message)
                let overDigest = try #require(
                    SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, digest as CFData, &error))
                #expect(
                    SecKeyVerifySignature(
                        publicKey, .ecdsaSignatureDigestX962SHA256, digest as CFData, overDigest, &error))
                // Another digest than SHA-256 is refused by name, not signed some other way.
                #expect(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA384, message as CFData, &error) == nil)
                #expect(SecureEnclaveTesting.status(error) == Int(errSecParam))
            }
        }
    }

    @Test("ECDH in the TPM agrees with a software peer, standard and cofactor, and ECIES opens through it")
    func keyAgreementAndECIES() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                let made = SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "agree"))
                let key = try #require(made.key, "\(made.message)")
                let publicKey = try #require(SecKeyCopyPublicKey(key))
                var error: Unmanaged<CFError>?
                let peer = try #require(
                    SecKeyCreateRandomKey(
                        [
                            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                            kSecAttrKeySizeInBits as String: 256,
                        ]
                            as CFDictionary, &error))
                let peerPublic = try #require(SecKeyCopyPublicKey(peer))
                let sizes = [kSecKeyKeyExchangeParameterRequestedSize as String: 32] as CFDictionary
                for algorithm in [
                    SecKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor,
                    .ecdhKeyExchangeStandardX963SHA256,
                ] {
                    let inTPM = SecKeyCopyKeyExchangeResult(key, algorithm, peerPublic, sizes, &error) as Data?
                    let inSoftware = SecKeyCopyKeyExchangeResult(peer, algorithm, publicKey, sizes, &error) as Data?
                    #expect(inTPM != nil && inTPM == inSoftware, "\(algorithm)")
                }
                let message = Data("for the enclave's eyes only".utf8)
                let packet = try #require(
                    SecKeyCreateEncryptedData(
                        publicKey, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, message as CFData, &error))
                let opened = SecKeyCreateDecryptedData(
                    key, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, packet, &error)
                #expect(opened as Data? == message)
                // A peer on another curve is refused by name.
                let p384 = try #require(
                    SecKeyCreateRandomKey(
                        [
                            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                            kSecAttrKeySizeInBits as String: 384,
                        ]
                            as CFDictionary, &error))
                let p384Public = try #require(SecKeyCopyPublicKey(p384))
                #expect(
                    SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, p384Public, [:] as CFDictionary, &error)
                        == nil)
                #expect(SecureEnclaveTesting.status(error) == Int(errSecParam))
            }
        }
    }

    @Test("attack: the key's stored blob, copied with the keychain to a machine with another TPM, is useless there")
    func blobUselessOnAnotherTPM() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let original = try TemporaryDirectory()
        let copyDirectory = try TemporaryDirectory()
        let message = Data("signed by the enclave".utf8) as CFData
        do {
            let engine = try TestSecItemKeychain.open(original)
            try SecureEnclave.$tcti.withValue(first.tcti) {
                try SecItemKeychain(backend: engine, caller: testApp).run {
                    let made = SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "stolen"))
                    _ = try #require(made.key, "\(made.message)")
                }
            }
        }
        try FileManager.default.removeItem(at: copyDirectory.url)
        try FileManager.default.copyItem(at: original.url, to: copyDirectory.url)
        let copied = try TestSecItemKeychain.open(copyDirectory)
        try SecItemKeychain(backend: copied, caller: testApp).run {
            let key = try #require(SecureEnclaveTesting.find("stolen").result as? SecKey)
            var error: Unmanaged<CFError>?
            let signature = SecureEnclave.$tcti.withValue(second.tcti) {
                SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error)
            }
            #expect(signature == nil, "another TPM signed with the copied blob")
            let failure = error.map { $0.takeRetainedValue() as Error as NSError }
            #expect(failure?.code == Int(errSecDecode), "\(String(describing: failure))")
            #expect(failure?.localizedDescription.contains("another TPM") == true, "\(String(describing: failure))")
            // The copy is intact: on the TPM that made the key it signs, so only the TPM stood in the way.
            let onItsTPM = SecureEnclave.$tcti.withValue(first.tcti) {
                SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error)
            }
            #expect(onItsTPM != nil)
        }
    }

    @Test("an SE key is never imported, never exported, and is EC 256 only, each refused naming the attribute")
    func refusedAsAppleRefuses() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                for (type, bits) in [(kSecAttrKeyTypeRSA, 2048), (kSecAttrKeyTypeECSECPrimeRandom, 384)] {
                    let made = SecureEnclaveTesting.generate(
                        try SecureEnclaveTesting.parameters(tag: "wrong", type: type, bits: bits))
                    #expect(made.key == nil)
                    #expect(made.status == Int(errSecParam), "\(made.message)")
                    #expect(made.message.contains("kSecAttrTokenID"), "\(made.message)")
                }
                var extractable = try SecureEnclaveTesting.parameters(tag: "wrong")
                extractable[kSecAttrIsExtractable as String] = true
                #expect(SecureEnclaveTesting.generate(extractable).status == Int(errSecParam))
                // Synchronizable (without access control, which would refuse it for its own reason): its blob
                // would follow the user to devices whose TPM cannot load it.
                let synchronizable: [String: Any] = [
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                    kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecAttrSynchronizable as String: true,
                    kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
                    kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true],
                ]
                let synced = SecureEnclaveTesting.generate(synchronizable)
                #expect(synced.status == Int(errSecParam), "\(synced.message)")
                #expect(copy([kSecClass as String: kSecClassKey]).status == errSecItemNotFound, "nothing was stored")
                // Import: a software key's bytes with the token's id are refused.
                var error: Unmanaged<CFError>?
                let software = try #require(
                    SecKeyCreateRandomKey(
                        [
                            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                            kSecAttrKeySizeInBits as String: 256,
                        ]
                            as CFDictionary, &error))
                let bytes = try #require(SecKeyCopyExternalRepresentation(software, &error))
                let imported = SecKeyCreateWithData(
                    bytes,
                    [
                        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                        kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                        kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                    ] as CFDictionary, &error)
                #expect(imported == nil)
                #expect(SecureEnclaveTesting.status(error) == Int(errSecParam))
                // Nor added as an item claiming the token: its bytes are a software key's.
                let added = add([
                    kSecClass as String: kSecClassKey, kSecValueData as String: bytes as Data,
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                    kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                ])
                #expect(added.status == errSecParam, "\(added.message ?? "")")
                #expect(added.message?.contains("kSecAttrTokenID") == true, "\(added.message ?? "")")
            }
        }
    }

    @Test("without a TPM an SE key is errSecUnimplemented naming the missing TPM, and no software key is made")
    func noTPM() throws {
        let keychain = try TestSecItemKeychain()
        try SecureEnclave.$tcti.withValue("none") {
            try keychain.run {
                let made = SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "nowhere"))
                #expect(made.key == nil)
                #expect(made.status == Int(errSecUnimplemented), "\(made.message)")
                #expect(made.message.contains("TPM"), "\(made.message)")
                #expect(copy([kSecClass as String: kSecClassKey]).status == errSecItemNotFound)
            }
        }
    }

    @Test("deleting the SE key item deletes it and nothing else")
    func deleteDeletesOnlyTheKey() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                #expect(add(password("alice", [kSecValueData as String: bytes("kept")])).status == errSecSuccess)
                var software = try SecureEnclaveTesting.parameters(tag: "software")
                software[kSecAttrTokenID as String] = nil
                _ = try #require(SecureEnclaveTesting.generate(software).key)
                let other = try #require(
                    SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "other-se")).key)
                let key = try #require(
                    SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "se")).key)
                let deleted = delete([
                    kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("se".utf8),
                ])
                #expect(deleted.status == errSecSuccess, "\(deleted.message ?? "")")
                #expect(SecureEnclaveTesting.find("se").status == errSecItemNotFound)
                var error: Unmanaged<CFError>?
                let message = Data("after the delete".utf8) as CFData
                #expect(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error) == nil)
                #expect(SecureEnclaveTesting.status(error) == Int(errSecItemNotFound))
                #expect(secret("alice") == "kept")
                #expect(SecureEnclaveTesting.find("software").status == errSecSuccess)
                #expect(SecKeyCreateSignature(other, .ecdsaSignatureMessageX962SHA256, message, &error) != nil)
            }
        }
    }

    @Test("through keychaind the key is made and used in the daemon's TPM; this process has none")
    func throughKeychaind() throws {
        let tpm = try SoftwareTPM()
        let daemon = try DaemonProcess(environment: [TPMContext.environmentVariable: tpm.tcti])
        let client = DaemonClient(socketPath: daemon.socketPath, retaining: daemon)
        try SecureEnclave.$tcti.withValue("none") {
            try SecItemKeychain(backend: client, caller: testApp).run {
                let made = SecureEnclaveTesting.generate(try SecureEnclaveTesting.parameters(tag: "daemon"))
                let key = try #require(made.key, "\(made.message)")
                let found = try #require(SecureEnclaveTesting.find("daemon").result as? SecKey)
                let publicKey = try #require(SecKeyCopyPublicKey(found))
                var error: Unmanaged<CFError>?
                let message = Data("signed in keychaind's TPM".utf8) as CFData
                let signature = try #require(
                    SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error),
                    "\(String(describing: error))")
                #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
                #expect(SecKeyCopyExternalRepresentation(found, &error) == nil)
                let attributes = try #require(SecKeyCopyAttributes(found) as? [String: Any])
                #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            }
        }
    }

    @Test("an SE key that is not stored is made in this process's TPM, signs there, and is never exported")
    func ephemeralKey() throws {
        let tpm = try SoftwareTPM()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            var parameters = try SecureEnclaveTesting.parameters(tag: "ephemeral")
            parameters[kSecPrivateKeyAttrs as String] = nil
            let made = SecureEnclaveTesting.generate(parameters)
            let key = try #require(made.key, "\(made.message)")
            var error: Unmanaged<CFError>?
            #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
            #expect(SecureEnclaveTesting.status(error) == Int(errSecUnimplemented))
            let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            #expect(attributes[kSecAttrIsPermanent as String] as? Bool == false)
            #expect(attributes[kSecValueData as String] == nil)
            #expect(SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA256))
            #expect(!SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA384))
            #expect(SecKeyIsAlgorithmSupported(key, .keyExchange, .ecdhKeyExchangeCofactor))
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let message = Data("signed in this process's TPM".utf8) as CFData
            let signature = try #require(
                SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error),
                "\(String(describing: error))")
            #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
            // Its blob is this TPM's: with another TPM it signs nothing.
            let other = try SoftwareTPM()
            let elsewhere = SecureEnclave.$tcti.withValue(other.tcti) {
                SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error)
            }
            #expect(elsewhere == nil)
            #expect(SecureEnclaveTesting.status(error) == Int(errSecDecode))
        }
    }
}
