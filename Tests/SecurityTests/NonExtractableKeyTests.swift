import Foundation
import KeychainCore
import KeychainKeys
import Security
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Private keys the keychain keeps (`kSecAttrIsExtractable` false): the app holds a handle, the keychain signs,
/// decrypts and agrees for it, and the key's bytes never come back.
@Suite("Non-extractable keys: used where they are stored, never returned")
struct NonExtractableKeyTests {
    private func generate(_ type: CFString, bits: Int) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
        return try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
    }

    private func status(_ error: Unmanaged<CFError>?) -> Int? {
        error.map { ($0.takeRetainedValue() as Error as NSError).code }
    }

    @Test("A handle signs, decrypts and agrees through the keychain; its bytes are refused as Apple refuses them")
    func handleUsesTheStoredKey() throws {
        let keychain = try TestSecItemKeychain()
        let ec = try generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try generate(kSecAttrKeyTypeRSA, bits: 2048)
        try keychain.run {
            for (key, tag) in [(ec, "ec"), (rsa, "rsa")] {
                let added = add([
                    kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                    kSecAttrApplicationTag as String: tag, kSecAttrIsExtractable as String: false,
                ])
                #expect(added.status == errSecSuccess, "\(added.message ?? "")")
            }
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "ec",
                kSecReturnRef as String: true,
            ]
            let handle = try #require(copy(query).result as? SecKey)
            #expect(handle == ec, "the handle is the same key: equal, as Apple's CFEqual says")
            var error: Unmanaged<CFError>?
            #expect(SecKeyCopyExternalRepresentation(handle, &error) == nil)
            #expect(status(error) == Int(errSecUnimplemented))
            let attributes = try #require(SecKeyCopyAttributes(handle) as? [String: Any])
            #expect(attributes[kSecAttrIsExtractable as String] as? Bool == false)
            #expect(attributes[kSecValueData as String] == nil)
            // kSecReturnData gives no key bytes.
            var dataQuery = query
            dataQuery[kSecReturnRef as String] = nil
            dataQuery[kSecReturnData as String] = true
            #expect((copy(dataQuery).result as? Data)?.isEmpty == true)
            // It signs (checked with the public key), in Apple's and in the legacy functions.
            let message = Data("signed inside the keychain".utf8)
            let signature = try #require(
                SecKeyCreateSignature(handle, .ecdsaSignatureMessageX962SHA256, message as CFData, &error))
            let publicKey = try #require(SecKeyCopyPublicKey(ec))
            #expect(
                SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature, &error)
            )
            var digest = [UInt8](repeating: 7, count: 32)
            var legacy = [UInt8](repeating: 0, count: 128)
            var legacyLength = legacy.count
            #expect(SecKeyRawSign(handle, .PKCS1, &digest, digest.count, &legacy, &legacyLength) == errSecSuccess)
            #expect(SecKeyRawVerify(publicKey, .PKCS1, &digest, digest.count, &legacy, legacyLength) == errSecSuccess)
            // It agrees on the same secret as the key it was made from.
            let peer = try generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let peerPublic = try #require(SecKeyCopyPublicKey(peer))
            let inKeychain = SecKeyCopyKeyExchangeResult(
                handle, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, &error)
            let inMemory = SecKeyCopyKeyExchangeResult(
                ec, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, &error)
            #expect(inKeychain != nil && inKeychain as Data? == inMemory as Data?)
            // An ECIES packet for the key opens through the handle.
            let packet = try #require(
                SecKeyCreateEncryptedData(
                    publicKey, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, message as CFData, &error))
            #expect(
                SecKeyCreateDecryptedData(handle, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, packet, &error)
                    as Data? == message)
            // An RSA handle decrypts.
            var rsaQuery = query
            rsaQuery[kSecAttrApplicationTag as String] = "rsa"
            let rsaHandle = try #require(copy(rsaQuery).result as? SecKey)
            let rsaPublic = try #require(SecKeyCopyPublicKey(rsa))
            let ciphertext = try #require(
                SecKeyCreateEncryptedData(rsaPublic, .rsaEncryptionOAEPSHA256, message as CFData, &error))
            #expect(
                SecKeyCreateDecryptedData(rsaHandle, .rsaEncryptionOAEPSHA256, ciphertext, &error) as Data? == message)
        }
    }

    @Test("The rules hold: never made extractable, never synchronizable, never used by another app or when locked")
    func rulesHold() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.engine.setPasscode("2468", current: nil)
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let reference = try keychain.run { () throws -> Data in
            let synchronizable = add([
                kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                kSecAttrIsExtractable as String: false, kSecAttrSynchronizable as String: true,
            ])
            #expect(synchronizable.status == errSecParam)
            #expect(synchronizable.message?.contains("synchronizable") == true)
            let added = add([
                kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrIsExtractable as String: false,
                kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
                kSecReturnPersistentRef as String: true,
            ])
            let made = update(
                [kSecClass as String: kSecClassKey], [kSecAttrIsExtractable as String: true])
            #expect(made.status == errSecParam)
            return try #require(added.result as? Data)
        }
        // Another app's caller, given the item's persistent reference, cannot use it (the wall is the engine's).
        KeyUsePerformer.install()
        let persistent = try #require(PersistentReference(data: reference))
        let use = KeyUse(.sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: Data("x".utf8))
        let query = ItemQuery(itemClass: .key, synchronizable: .any, persistentReference: persistent)
        let stranger = Caller(applicationIdentifier: "OTHER.com.example.b", accessGroups: ["OTHER.com.example.b"])
        #expect(throws: EngineError.self) { try keychain.engine.useKey(query, use, for: stranger) }
        do {
            _ = try keychain.engine.useKey(query, use, for: stranger)
        } catch {
            #expect(error.code == .itemNotFound)
        }
        #expect(try keychain.engine.useKey(query, use, for: keychain.caller).count > 8)
        // Locked: the key cannot be used.
        keychain.engine.lock()
        do {
            _ = try keychain.engine.useKey(query, use, for: keychain.caller)
            Issue.record("a locked keychain used its key")
        } catch {
            #expect(error.code == .interactionNotAllowed)
        }
    }

    @Test(
        "Through a real keychaind: an app signs with a key it never holds (its memory is searched for the key's bytes)",
        .enabled(if: geteuid() == 0, "starting keychaind as its system user and reading a process's memory needs root"))
    func appNeverHoldsTheKey() throws {
        let daemon = try DaemonProcess()
        let home = try TemporaryDirectory()
        let environment = [
            "KEYCHAIN_DAEMON": daemon.socketPath, "KEYCHAIN_HOME": home.keychain.path, "SWIFT_BACKTRACE": "enable=no",
        ]
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        var error: Unmanaged<CFError>?
        let external = try #require(SecKeyCopyExternalRepresentation(key, &error)) as Data
        let scalar = [UInt8](external.suffix(32))
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        // One process stores the key (it had the bytes: an importer), marked extractable or not by its tag.
        var probe = Probe(keychainHome: home.keychain)
        probe.extraEnvironment = environment
        for (tag, extractable) in [("kept", false), ("given", true)] {
            let added = try probe.call(
                "add",
                [
                    kSecClass as String: kSecClassKey, kSecValueData as String: external,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                    kSecAttrApplicationTag as String: tag, kSecAttrIsExtractable as String: extractable,
                ])
            #expect(added.status == errSecSuccess, "\(added.message)")
        }
        // Another process, the app, signs with each and waits while its memory is searched.
        let message = Data("from the app".utf8)
        var found: [String: Bool] = [:]
        for tag in ["kept", "given"] {
            let query = String(
                decoding: try JSONSerialization.data(withJSONObject: [
                    kSecClass as String: kSecClassKey as String, kSecAttrApplicationTag as String: tag,
                    kSecReturnRef as String: true,
                ]), as: UTF8.self)
            let app = try PipeSession(
                Probe.builtExecutable.path, ["sign", query, message.base64EncodedString()],
                environment: environment)
            let line = try app.readLine()
            let outcome = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(outcome["status"] as? Int == 0, "\(line)")
            let encoded = try #require((outcome["result"] as? [String: Any])?["$data"] as? String)
            let signature = try #require(Data(base64Encoded: encoded))
            #expect(
                SecKeyVerifySignature(
                    publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature as CFData, &error))
            // The scalar as the key's bytes carry it, or as OpenSSL's number holds it (little-endian words).
            found[tag] =
                try ProcessInspection.writableMemory(of: app.pid, contains: scalar)
                || ProcessInspection.writableMemory(of: app.pid, contains: scalar.reversed())
            app.send("done")
            _ = try app.finish()
        }
        #expect(found["given"] == true, "the search finds a key the app does hold (the control)")
        #expect(found["kept"] == false, "the app's memory holds the key keychaind keeps")
        // A permanent key an app generates through keychaind is made there and kept there by default: the app
        // cannot export it, and another process of the app signs with it.
        let generated = try probe.call(
            "generate",
            [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom as String,
                kSecAttrKeySizeInBits as String: 256, kSecAttrIsPermanent as String: true,
                kSecAttrApplicationTag as String: "made-in-keychaind",
            ])
        #expect(generated.status == errSecSuccess, "\(generated.message)")
        #expect(generated.result as? Int == Int(errSecUnimplemented), "the generated key cannot be exported")
        let query = String(
            decoding: try JSONSerialization.data(withJSONObject: [
                kSecClass as String: kSecClassKey as String, kSecAttrApplicationTag as String: "made-in-keychaind",
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate as String, kSecReturnRef as String: true,
            ]), as: UTF8.self)
        let signer = try PipeSession(
            Probe.builtExecutable.path, ["sign", query, message.base64EncodedString()], environment: environment)
        #expect(try signer.readLine().hasPrefix(#"{"message":"","result":{"$data""#))
        signer.send("done")
        _ = try signer.finish()
    }
}

/// A key with `.userPresence`: using it needs the passcode, as Apple's keys with that flag do. The key's bytes are
/// sealed under the passcode's factor, so even its public half (which a handle needs) opens only with it: the
/// lookup asks once, and each use asks again (a context that allows reuse would not).
@Suite("A stored key with .userPresence asks before it is used")
struct UserPresenceKeyTests {
    private func guardedKey(in keychain: TestSecItemKeychain) throws -> SecKey {
        try keychain.engine.setPasscode("2468", current: nil)
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        ]
        let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.userPresence, .privateKeyUsage], nil))
            let added = add([
                kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrIsExtractable as String: false,
                kSecAttrAccessControl as String: control, kSecAttrApplicationTag as String: "guarded",
            ])
            #expect(added.status == errSecSuccess, "\(added.message ?? "")")
        }
        return key
    }

    private func lookup(_ prompter: ScriptedPrompter) -> Outcome {
        copy([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "guarded",
            kSecReturnRef as String: true, kSecUseAuthenticationContext as String: scriptedContext(prompter),
        ])
    }

    @Test("With the passcode typed the key signs; the user was asked before each use")
    func signsAfterThePasscode() throws {
        let keychain = try TestSecItemKeychain()
        let key = try guardedKey(in: keychain)
        let prompter = ScriptedPrompter([.type("2468"), .type("2468")])
        try keychain.run {
            let found = lookup(prompter)
            #expect(found.status == errSecSuccess, "\(found.message ?? "")")
            let handle = try #require(found.result as? SecKey)
            #expect(prompter.asked.count >= 1, "the passcode was asked for")
            var error: Unmanaged<CFError>?
            let message = Data("approve the payment".utf8) as CFData
            let made = SecKeyCreateSignature(handle, .ecdsaSignatureMessageX962SHA256, message, &error)
            let signature = try #require(made, "\(String(describing: error?.takeRetainedValue()))")
            #expect(prompter.asked.count == 2, "once for the handle's public half, once for the signature")
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
        }
    }

    @Test("A cancel at the prompt is errSecUserCanceled: no handle, nothing signed")
    func cancelSignsNothing() throws {
        let keychain = try TestSecItemKeychain()
        _ = try guardedKey(in: keychain)
        keychain.run {
            let found = lookup(ScriptedPrompter([.cancel]))
            #expect(found.status == errSecUserCanceled)
            #expect(found.result == nil)
        }
    }
}
