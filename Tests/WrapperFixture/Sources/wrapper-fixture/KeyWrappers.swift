import Foundation
import Security

// Key code in the style of the popular RSA and EC key wrappers: PEM armour and the X.509 public-key header taken off
// by hand around SecKeyCreateWithData, keys stored and found by application tag, the legacy SecKeyEncrypt with
// padding, and a permanent EC signing key found again by its tag.

/// The DER header an X.509 SubjectPublicKeyInfo puts before an RSA-2048 PKCS#1 public key.
let rsa2048Header: [UInt8] = [
    0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05,
    0x00, 0x03, 0x82, 0x01, 0x0f, 0x00,
]

enum RSAKeyStore {
    /// A PEM public key as a server would hand it out: the PKCS#1 key behind an X.509 header, base64, armoured.
    static func pem(publicKey: SecKey) -> String? {
        var error: Unmanaged<CFError>?
        guard let pkcs1 = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else { return nil }
        let body = (Data(rsa2048Header) + pkcs1).base64EncodedString(options: [.lineLength64Characters])
        return "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----"
    }

    /// The PEM's key, header stripped by hand, stored under `tag` and returned from the keychain.
    static func addPublicKey(pem: String, tag: String) -> SecKey? {
        let base64 = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), der.count > rsa2048Header.count
        else { return nil }
        let pkcs1 = der.subdata(in: rsa2048Header.count..<der.count)
        let tagData = Data(tag.utf8)
        let delete: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tagData]
        SecItemDelete(delete as CFDictionary)
        let add: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecAttrApplicationTag as String: tagData, kSecValueData as String: pkcs1,
            kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecReturnPersistentRef as String: true,
        ]
        var persistent: CFTypeRef?
        guard SecItemAdd(add as CFDictionary, &persistent) == errSecSuccess else { return nil }
        return key(tag: tag)
    }

    static func key(tag: String) -> SecKey? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? SecKey
    }

    /// SecKeyEncrypt with PKCS#1 padding into a block-sized buffer, as the older wrappers do.
    static func encrypt(_ message: Data, with key: SecKey) -> Data? {
        var cipher = [UInt8](repeating: 0, count: SecKeyGetBlockSize(key))
        var length = cipher.count
        let status = message.withUnsafeBytes { bytes -> OSStatus in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return errSecParam }
            return SecKeyEncrypt(key, .PKCS1, base, message.count, &cipher, &length)
        }
        return status == errSecSuccess ? Data(cipher.prefix(length)) : nil
    }

    static func decrypt(_ cipher: Data, with key: SecKey) -> Data? {
        var plain = [UInt8](repeating: 0, count: SecKeyGetBlockSize(key))
        var length = plain.count
        let status = cipher.withUnsafeBytes { bytes -> OSStatus in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return errSecParam }
            return SecKeyDecrypt(key, .PKCS1, base, cipher.count, &plain, &length)
        }
        return status == errSecSuccess ? Data(plain.prefix(length)) : nil
    }
}

enum SigningKeyStore {
    /// A permanent P-256 signing key under `tag`, made once and found again afterwards.
    static func signingKey(tag: String) -> SecKey? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        if SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess { return result as? SecKey }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(tag.utf8),
            ],
        ]
        var error: Unmanaged<CFError>?
        return SecKeyCreateRandomKey(attributes as CFDictionary, &error)
    }
}
