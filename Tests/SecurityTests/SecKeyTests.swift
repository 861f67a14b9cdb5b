import Foundation
import Security
import TestSupport
import Testing

/// Apple's key functions as iOS code calls them: dictionaries in, `Unmanaged<CFError>` out, Apple's statuses.
@Suite("SecKey: Apple's key functions")
struct SecKeyTests {
    /// The status code of a reported error.
    private func status(_ error: Unmanaged<CFError>?) -> Int? {
        error.map { ($0.takeRetainedValue() as Error as NSError).code }
    }

    private func makeKey(_ type: CFString, bits: Int) throws -> SecKey {
        let attributes: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error)
        #expect(error == nil)
        return try #require(key)
    }

    @Test(
        "An EC key pair signs and verifies; a changed signature is errSecVerifyFailed; an RSA algorithm is errSecParam")
    func ecSignatures() throws {
        let privateKey = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = Data("sign me".utf8) as CFData
        for algorithm in [
            SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureMessageX962SHA512,
            .ecdsaSignatureMessageRFC4754SHA256,
        ] {
            #expect(SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm))
            var error: Unmanaged<CFError>?
            let signature = try #require(SecKeyCreateSignature(privateKey, algorithm, message, &error))
            #expect(SecKeyVerifySignature(publicKey, algorithm, message, signature, &error))
            var changed = [UInt8](signature as Data)
            changed[changed.count - 1] ^= 1
            #expect(!SecKeyVerifySignature(publicKey, algorithm, message, Data(changed) as CFData, &error))
            #expect(status(error) == Int(errSecVerifyFailed))
        }
        var error: Unmanaged<CFError>?
        #expect(!SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureMessagePKCS1v15SHA256))
        #expect(SecKeyCreateSignature(privateKey, .rsaSignatureMessagePKCS1v15SHA256, message, &error) == nil)
        #expect(status(error) == Int(errSecParam))
        // A public key does not sign.
        #expect(SecKeyCreateSignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, &error) == nil)
        #expect(status(error) == Int(errSecParam))
    }

    @Test("RSA: OAEP round trip, block size, external representation read back, the size given beside it ignored")
    func rsa() throws {
        let privateKey = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        #expect(SecKeyGetBlockSize(privateKey) == 256)
        var error: Unmanaged<CFError>?
        let secret = Data("for the private key only".utf8)
        let ciphertext = try #require(
            SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, secret as CFData, &error))
        #expect(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, ciphertext, &error) as Data? == secret)
        let external = try #require(SecKeyCopyExternalRepresentation(privateKey, &error))
        let read = try #require(
            SecKeyCreateWithData(
                external,
                [
                    kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                    kSecAttrKeySizeInBits as String: 4096,
                ] as CFDictionary, &error))
        #expect(read == privateKey && SecKeyCopyPublicKey(read) == publicKey)
        #expect(read != publicKey)
        // Not a key: errSecParam, and nothing made.
        #expect(
            SecKeyCreateWithData(
                Data("junk".utf8) as CFData,
                [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
                    as CFDictionary, &error) == nil)
        #expect(status(error) == Int(errSecParam))
    }

    @Test("ECDH: both parties agree, with and without the X9.63 KDF")
    func keyExchange() throws {
        let alice = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let bob = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let (alicePublic, bobPublic) = (
            try #require(SecKeyCopyPublicKey(alice)), try #require(SecKeyCopyPublicKey(bob))
        )
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecKeyKeyExchangeParameterRequestedSize as String: 32,
            kSecKeyKeyExchangeParameterSharedInfo as String: Data("context".utf8),
        ]
        for algorithm in [SecKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactorX963SHA256] {
            let one = SecKeyCopyKeyExchangeResult(alice, algorithm, bobPublic, parameters as CFDictionary, &error)
            let two = SecKeyCopyKeyExchangeResult(bob, algorithm, alicePublic, parameters as CFDictionary, &error)
            #expect(one != nil && (one as Data?) == (two as Data?))
        }
        #expect(
            SecKeyCopyKeyExchangeResult(
                alice, .ecdhKeyExchangeStandardX963SHA256, bobPublic, [:] as CFDictionary, &error)
                == nil)
        #expect(status(error) == Int(errSecParam))
    }

    @Test("Attributes as Apple's: class, type, sizes, klbl (SHA-1 of the public key), the tag given; no key stored")
    func attributes() throws {
        var error: Unmanaged<CFError>?
        let tag = Data("com.example.keys.signing".utf8)
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: tag],
        ]
        let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeECSECPrimeRandom as String)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
        #expect((attributes[kSecAttrApplicationLabel as String] as? Data)?.count == 20)
        // A size the family does not have, or no type: errSecParam naming it.
        for bad: [String: Any] in [
            [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 255],
            [kSecAttrKeySizeInBits as String: 256],
        ] {
            #expect(SecKeyCreateRandomKey(bad as CFDictionary, &error) == nil)
            #expect(status(error) == Int(errSecParam))
        }
    }
}

/// The legacy functions older wrappers call: raw buffers, `SecPadding`, plain statuses.
@Suite("SecKey: the legacy functions (SecKeyEncrypt, SecKeyRawSign …)")
struct SecKeyLegacyTests {
    private func rsaKey() throws -> SecKey {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
        ]
        return try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
    }

    @Test("PKCS#1 and OAEP encryption round trips; a buffer too small is errSecParam")
    func encryption() throws {
        let privateKey = try rsaKey()
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let plain = Array("legacy secret".utf8)
        for padding in [SecPadding.PKCS1, .OAEP] {
            var cipher = [UInt8](repeating: 0, count: SecKeyGetBlockSize(publicKey))
            var cipherLength = cipher.count
            #expect(SecKeyEncrypt(publicKey, padding, plain, plain.count, &cipher, &cipherLength) == errSecSuccess)
            var opened = [UInt8](repeating: 0, count: 256)
            var openedLength = opened.count
            #expect(SecKeyDecrypt(privateKey, padding, cipher, cipherLength, &opened, &openedLength) == errSecSuccess)
            #expect(Array(opened.prefix(openedLength)) == plain)
            var tiny = [UInt8](repeating: 0, count: 4)
            var tinyLength = tiny.count
            #expect(SecKeyEncrypt(publicKey, padding, plain, plain.count, &tiny, &tinyLength) == errSecParam)
        }
    }

    @Test("RawSign over a SHA-256 digest verifies; a changed digest is errSSLCrypto; MD5 padding is errSecParam")
    func signatures() throws {
        let privateKey = try rsaKey()
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        var digest = [UInt8](repeating: 0, count: 32)
        for index in digest.indices { digest[index] = UInt8(index) }
        var signature = [UInt8](repeating: 0, count: 256)
        var length = signature.count
        #expect(SecKeyRawSign(privateKey, .PKCS1SHA256, digest, digest.count, &signature, &length) == errSecSuccess)
        #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, signature, length) == errSecSuccess)
        digest[0] ^= 1
        #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, signature, length) == errSSLCrypto)
        #expect(SecKeyRawSign(privateKey, .PKCS1MD5, digest, 16, &signature, &length) == errSecParam)
    }
}

@Suite("CFGetTypeID tells keys, certificates and identities apart, as key code checks them")
struct TypeIDTests {
    @Test("Each type its own identifier; a SecKey is one whatever the reference it came through")
    func typeIDs() throws {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        ]
        let key = try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
        let reference: CFTypeRef = key
        #expect(CFGetTypeID(reference) == SecKeyGetTypeID())
        #expect(CFGetTypeID(reference) != SecCertificateGetTypeID())
        #expect(CFGetTypeID(NSString(string: "s")) == CFStringGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: true)) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 3)) == CFNumberGetTypeID())
        #expect(CFGetTypeID(NSData()) == CFDataGetTypeID())
        let identifiers = [
            SecKeyGetTypeID(), SecCertificateGetTypeID(), SecIdentityGetTypeID(), SecAccessControlGetTypeID(),
            CFStringGetTypeID(), CFDataGetTypeID(), CFNumberGetTypeID(), CFBooleanGetTypeID(), CFDictionaryGetTypeID(),
            CFArrayGetTypeID(), CFDateGetTypeID(),
        ]
        #expect(Set(identifiers).count == identifiers.count)
    }
}
