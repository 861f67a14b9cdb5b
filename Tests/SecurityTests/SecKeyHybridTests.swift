import Foundation
import Security
import TestSupport
import Testing

/// Apple's hybrid encryption algorithms: ECIES (AES-GCM, fixed or derived IV) and RSA OAEP with AES-GCM.
@Suite("SecKey hybrid encryption: ECIES and RSA OAEP AES-GCM")
struct SecKeyHybridTests {
    private func key(_ type: CFString, bits: Int) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
        return try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
    }

    static let eciesAlgorithms: [SecKeyAlgorithm] = [
        .eciesEncryptionStandardX963SHA1AESGCM, .eciesEncryptionStandardX963SHA256AESGCM,
        .eciesEncryptionStandardX963SHA512AESGCM, .eciesEncryptionCofactorX963SHA256AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA384AESGCM,
    ]

    @Test(
        "ECIES round-trips on every curve; the packet is the ephemeral point, the ciphertext and a 16-byte tag; a changed byte fails",
        arguments: [256, 384, 521])
    func ecies(bits: Int) throws {
        let privateKey = try key(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = Data("a message of any length, longer than one block of AES".utf8)
        let point = 1 + 2 * ((bits + 7) / 8)
        for algorithm in Self.eciesAlgorithms {
            #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
            #expect(SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm))
            #expect(!SecKeyIsAlgorithmSupported(publicKey, .decrypt, algorithm))
            var error: Unmanaged<CFError>?
            let packet =
                try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, &error)) as Data
            #expect(packet.count == point + message.count + 16 && packet.first == 4)
            // A fresh ephemeral key each time: the same message never gives the same packet.
            let again = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, &error)) as Data
            #expect(again != packet)
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, packet as CFData, &error) as Data? == message)
            for position in [1, point + 2, packet.count - 1] {
                var changed = packet
                changed[position] ^= 1
                #expect(SecKeyCreateDecryptedData(privateKey, algorithm, changed as CFData, &error) == nil)
            }
            // Another key's packet does not open.
            let other = try key(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            #expect(SecKeyCreateDecryptedData(other, algorithm, packet as CFData, &error) == nil)
        }
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .encrypt, .rsaEncryptionOAEPSHA256AESGCM))
    }

    @Test("RSA OAEP AES-GCM: any length, the wrapped key first; a changed byte fails; an EC key does not take it")
    func rsaAESGCM() throws {
        let privateKey = try key(kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = Data(repeating: 0x5A, count: 10_000)
        for algorithm in [
            SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM, .rsaEncryptionOAEPSHA256AESGCM, .rsaEncryptionOAEPSHA512AESGCM,
        ] {
            var error: Unmanaged<CFError>?
            let packet =
                try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, &error)) as Data
            #expect(packet.count == 256 + message.count + 16)
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, packet as CFData, &error) as Data? == message)
            var changed = packet
            changed[300] ^= 1
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, changed as CFData, &error) == nil)
        }
        let ec = try key(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        #expect(!SecKeyIsAlgorithmSupported(ec, .encrypt, .rsaEncryptionOAEPSHA256AESGCM))
    }

    @Test("Apple's identifiers, as its Security framework spells them")
    func identifiers() {
        #expect(SecKeyAlgorithm.ecdhKeyExchangeStandard.rawValue as String == "algid:keyexchange:ECDH")
        #expect(
            SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256.rawValue as String
                == "algid:keyexchange:ECDHC:KDFX963:SHA256")
        #expect(
            SecKeyAlgorithm.rsaSignatureMessagePSSSHA256.rawValue as String
                == "algid:sign:RSA:message-PSS:SHA256:SHA256:32")
        #expect(
            SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM.rawValue as String
                == "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    }
}
