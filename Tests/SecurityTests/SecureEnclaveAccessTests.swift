import Foundation
import KeychainClient
import KeychainCore
import KeychainKeys
import KeychainTPM
import LocalAuthentication
import Security
import TestSupport
import Testing

/// The access control of "Secure Enclave" keys: enforced by the keychain, before the key's blob reaches the TPM.
@Suite(
    "Secure Enclave keys' access control",
    .enabled(if: secureEnclaveSkipReason == nil, Comment(rawValue: secureEnclaveSkipReason ?? "")))
struct SecureEnclaveAccessTests {
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
                let made = SecureEnclaveTesting.generate(parameters)
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
                        #expect(SecureEnclaveTesting.status(error) == Int(expected))
                    } else {
                        #expect(found.status == expected, "\(found.message ?? "")")
                    }
                }
            }
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
