import Foundation
import KeychainClient
import KeychainCore
import KeychainKeys
import KeychainTPM
import LocalAuthentication
import Security
import TestSupport
import Testing

/// Why the Secure Enclave tests cannot run here, or `nil` when they can: they need swtpm, libtss2 and openssl.
private let skipReason: String? =
    SoftwareTPM.unavailableReason
    ?? TPMContext.loadFailure().map { "skipped: the TPM software stack is not installed (libtss2-dev): \($0)" }
    ?? (OpenSSLCommand.isInstalled ? nil : "skipped: the openssl command is not installed")

/// "Secure Enclave" keys (`kSecAttrTokenIDSecureEnclave`), which live in the TPM (issue 26): each test has its own
/// keychain and its own software TPM.
@Suite("Secure Enclave keys in the TPM", .enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
struct SecureEnclaveKeyTests {
    /// The DER SubjectPublicKeyInfo header of a P-256 key (id-ecPublicKey, prime256v1, a 66-byte BIT STRING).
    private static let publicKeyInfoHeader = Data([
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ])

    /// Apple's parameters for a stored Secure Enclave key tagged `tag`.
    private static func parameters(
        tag: String, type: CFString = kSecAttrKeyTypeECSECPrimeRandom, bits: Int = 256
    ) throws -> [String: Any] {
        let control = try #require(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, nil))
        return [
            kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(tag.utf8),
                kSecAttrAccessControl as String: control,
            ],
        ]
    }

    /// Makes a Secure Enclave key: the key, or the status and message of the failure.
    private static func generate(_ parameters: [String: Any]) -> (key: SecKey?, status: Int?, message: String) {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        let failure = error.map { $0.takeRetainedValue() as Error as NSError }
        return (key, failure?.code, failure?.localizedDescription ?? "")
    }

    private static func status(_ error: Unmanaged<CFError>?) -> Int? {
        error.map { ($0.takeRetainedValue() as Error as NSError).code }
    }

    /// The key tagged `tag`, found again as an app would (`kSecReturnRef`).
    private static func find(_ tag: String) -> Outcome {
        copy([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true,
        ])
    }

    @Test("an SE key signs in the TPM and openssl verifies the signature over its exported public key")
    func signsAndOpenSSLVerifies() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        let directory = try TemporaryDirectory()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                let made = Self.generate(try Self.parameters(tag: "se"))
                let key = try #require(made.key, "\(made.message)")
                let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
                #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
                #expect(attributes[kSecAttrIsExtractable as String] as? Bool == false)
                var error: Unmanaged<CFError>?
                #expect(SecKeyCopyExternalRepresentation(key, &error) == nil, "the private key never leaves")
                #expect(Self.status(error) == Int(errSecUnimplemented))
                let publicKey = try #require(SecKeyCopyPublicKey(key))
                let point = try #require(SecKeyCopyExternalRepresentation(publicKey, &error) as Data?)
                #expect(point.count == 65 && point.first == 0x04)
                // Found again by its tag, it is the same key, and says where it lives.
                let found = try #require(Self.find("se").result as? SecKey)
                #expect(found == key)
                let foundAttributes = try #require(SecKeyCopyAttributes(found) as? [String: Any])
                #expect(foundAttributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
                let message = Data("pay 10 to Bob".utf8)
                let signature = try #require(
                    SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?)
                let publicFile = directory.file("public.der")
                try (Self.publicKeyInfoHeader + point).write(to: publicFile)
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
                #expect(Self.status(error) == Int(errSecParam))
            }
        }
    }

    @Test("ECDH in the TPM agrees with a software peer, standard and cofactor, and ECIES opens through it")
    func keyAgreementAndECIES() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                let made = Self.generate(try Self.parameters(tag: "agree"))
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
                #expect(Self.status(error) == Int(errSecParam))
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
                    let made = Self.generate(try Self.parameters(tag: "stolen"))
                    _ = try #require(made.key, "\(made.message)")
                }
            }
        }
        try FileManager.default.removeItem(at: copyDirectory.url)
        try FileManager.default.copyItem(at: original.url, to: copyDirectory.url)
        let copied = try TestSecItemKeychain.open(copyDirectory)
        try SecItemKeychain(backend: copied, caller: testApp).run {
            let key = try #require(Self.find("stolen").result as? SecKey)
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
                    let made = Self.generate(try Self.parameters(tag: "wrong", type: type, bits: bits))
                    #expect(made.key == nil)
                    #expect(made.status == Int(errSecParam), "\(made.message)")
                    #expect(made.message.contains("kSecAttrTokenID"), "\(made.message)")
                }
                var extractable = try Self.parameters(tag: "wrong")
                extractable[kSecAttrIsExtractable as String] = true
                #expect(Self.generate(extractable).status == Int(errSecParam))
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
                #expect(Self.status(error) == Int(errSecParam))
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
                let made = Self.generate(try Self.parameters(tag: "nowhere"))
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
                var software = try Self.parameters(tag: "software")
                software[kSecAttrTokenID as String] = nil
                _ = try #require(Self.generate(software).key)
                let other = try #require(Self.generate(try Self.parameters(tag: "other-se")).key)
                let key = try #require(Self.generate(try Self.parameters(tag: "se")).key)
                let deleted = delete([
                    kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("se".utf8),
                ])
                #expect(deleted.status == errSecSuccess, "\(deleted.message ?? "")")
                #expect(Self.find("se").status == errSecItemNotFound)
                var error: Unmanaged<CFError>?
                let message = Data("after the delete".utf8) as CFData
                #expect(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error) == nil)
                #expect(Self.status(error) == Int(errSecItemNotFound))
                #expect(secret("alice") == "kept")
                #expect(Self.find("software").status == errSecSuccess)
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
                let made = Self.generate(try Self.parameters(tag: "daemon"))
                let key = try #require(made.key, "\(made.message)")
                let found = try #require(Self.find("daemon").result as? SecKey)
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

    @Test("attack: an SE key guarded by an application password is used only with it; the keychain checks it first")
    func passwordGuardsTheKey() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        let owner = LAContext(authenticationContext: scriptedContext(ScriptedPrompter([])))
        #expect(owner.setCredential(Data("hunter2".utf8), type: .applicationPassword))
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            try keychain.run {
                let control = try #require(
                    SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.applicationPassword, .privateKeyUsage],
                        nil))
                let parameters: [String: Any] = [
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                    kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                    kSecUseAuthenticationContext as String: owner,
                    kSecPrivateKeyAttrs as String: [
                        kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("guarded".utf8),
                        kSecAttrAccessControl as String: control,
                    ],
                ]
                let made = Self.generate(parameters)
                let key = try #require(made.key, "\(made.message)")
                var error: Unmanaged<CFError>?
                let message = Data("only with the password".utf8) as CFData
                #expect(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error) != nil)
                // Found by someone who cannot answer, or who answers wrong: no signature.
                let mute = LAContext(authenticationContext: scriptedContext(ScriptedPrompter([.unavailable])))
                let guesser = LAContext(authenticationContext: scriptedContext(ScriptedPrompter([])))
                #expect(guesser.setCredential(Data("guess".utf8), type: .applicationPassword))
                for (context, expected) in [(mute, errSecInteractionNotAllowed), (guesser, errSecAuthFailed)] {
                    let found = copy([
                        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("guarded".utf8),
                        kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true,
                        kSecUseAuthenticationContext as String: context,
                    ])
                    if let handle = found.result as? SecKey {
                        let signature = SecKeyCreateSignature(handle, .ecdsaSignatureMessageX962SHA256, message, &error)
                        #expect(signature == nil)
                        #expect(Self.status(error) == Int(expected))
                    } else {
                        #expect(found.status == expected, "\(found.message ?? "")")
                    }
                }
            }
        }
    }

    @Test("an SE key that is not stored is made in this process's TPM, signs there, and is never exported")
    func ephemeralKey() throws {
        let tpm = try SoftwareTPM()
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            var parameters = try Self.parameters(tag: "ephemeral")
            parameters[kSecPrivateKeyAttrs as String] = nil
            let made = Self.generate(parameters)
            let key = try #require(made.key, "\(made.message)")
            var error: Unmanaged<CFError>?
            #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
            #expect(Self.status(error) == Int(errSecUnimplemented))
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
            #expect(Self.status(error) == Int(errSecDecode))
        }
    }

    @Test("attack: an SE key guarded by the device passcode signs in the keychain only with the passcode")
    func passcodeGuardsTheKey() throws {
        let tpm = try SoftwareTPM()
        let keychain = try TestSecItemKeychain()
        KeyUsePerformer.install()
        try keychain.engine.setPasscode(try Passcode(copying: "1234"), current: nil)
        let control = try AccessConstraint(flags: [.devicePasscode, .privateKeyUsage]).attributeValue
        let tag = AttributeValue.data(Data("passcode".utf8))
        let passcode = ItemAuthentication(passcode: try Passcode(copying: "1234"))
        try SecureEnclave.$tcti.withValue(tpm.tcti) {
            let generation = KeyGeneration(
                keyType: CredentialAttributes.ellipticCurveType, sizeInBits: 256,
                privateKey: NewItem(
                    itemClass: .key,
                    attributes: [
                        .keyClass: .integer(CredentialAttributes.privateKeyClass), .applicationTag: tag,
                        .accessControl: control, .tokenID: .string(SecureEnclave.tokenID),
                    ],
                    authentication: passcode),
                publicKey: nil)
            let made = try keychain.engine.generateKey(generation, for: keychain.caller)
            #expect(made.first?.attributes[.tokenID] == .string(SecureEnclave.tokenID))
            #expect(made.first?.data?.isEmpty != false, "the blob does not come back")
            var query = ItemQuery(itemClass: .key, attributes: [.applicationTag: tag])
            let use = KeyUse(.sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: Data("pay".utf8))
            let bare = #expect(throws: EngineError.self) {
                try keychain.engine.useKey(query, use, for: keychain.caller)
            }
            #expect(bare?.code == .authNeeded, "\(String(describing: bare))")
            query.authentication = ItemAuthentication(passcode: try Passcode(copying: "0000"))
            let wrong = #expect(throws: EngineError.self) {
                try keychain.engine.useKey(query, use, for: keychain.caller)
            }
            #expect(wrong?.code == .authFailed, "\(String(describing: wrong))")
            query.authentication = passcode
            let signature = try keychain.engine.useKey(query, use, for: keychain.caller)
            let publicKey = try keychain.engine.useKey(query, KeyUse(.publicKey), for: keychain.caller)
            let key = try AsymmetricKey.importing(publicKey, kind: .ec(.p256), isPrivate: false)
            #expect(try key.verify(signature, of: Data("pay".utf8), scheme: .ecdsaX962(.sha256, isDigest: false)))
        }
    }
}
