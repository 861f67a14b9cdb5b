import CommonCrypto
import Foundation
import Testing

/// CommonCrypto's functions against published test vectors, as code that imports them beside Security calls them.
@Suite("CommonCrypto: digests, HMAC, AES, PBKDF2 against their published vectors")
struct CommonCryptoTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    private func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    @Test("SHA-1, SHA-256, SHA-512 and MD5 of \"abc\" (FIPS 180-4, RFC 1321)")
    func digests() {
        let abc = Array("abc".utf8)
        var sha256 = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        CC_SHA256(abc, CC_LONG(abc.count), &sha256)
        #expect(hex(sha256) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var sha1 = [UInt8](repeating: 0, count: Int(CC_SHA1_DIGEST_LENGTH))
        CC_SHA1(abc, CC_LONG(abc.count), &sha1)
        #expect(hex(sha1) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        var sha512 = [UInt8](repeating: 0, count: Int(CC_SHA512_DIGEST_LENGTH))
        CC_SHA512(abc, CC_LONG(abc.count), &sha512)
        #expect(hex(sha512).hasPrefix("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"))
        var md5 = [UInt8](repeating: 0, count: Int(CC_MD5_DIGEST_LENGTH))
        CC_MD5(abc, CC_LONG(abc.count), &md5)
        #expect(hex(md5) == "900150983cd24fb0d6963f7d28e17f72")
    }

    @Test("HMAC-SHA256, RFC 4231 test case 2")
    func hmac() {
        let key = Array("Jefe".utf8)
        let data = Array("what do ya want for nothing?".utf8)
        var mac = [UInt8](repeating: 0, count: 32)
        CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), key, key.count, data, data.count, &mac)
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("AES-128-CBC, NIST SP 800-38A F.2.1, and PKCS#7 round trips; a wrong key, size or buffer, by status")
    func aes() {
        let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
        let iv = bytes("000102030405060708090a0b0c0d0e0f")
        let plaintext = bytes("6bc1bee22e409f96e93d7e117393172a")
        var out = [UInt8](repeating: 0, count: 16)
        var moved = 0
        #expect(
            CCCrypt(
                CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), 0, key, key.count, iv, plaintext,
                plaintext.count, &out, out.count, &moved) == kCCSuccess)
        #expect(hex(Array(out.prefix(moved))) == "7649abac8119b246cee98e9b12e9197d")
        // PKCS#7: a whole block of padding after 16 bytes; the round trip gives the input back.
        let message = Array("CommonCrypto on Linux, padded".utf8)
        var sealed = [UInt8](repeating: 0, count: message.count + 16)
        #expect(
            CCCrypt(
                CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), key, 16, iv,
                message, message.count, &sealed, sealed.count, &moved) == kCCSuccess)
        var opened = [UInt8](repeating: 0, count: moved)
        var openedLength = 0
        #expect(
            CCCrypt(
                CCOperation(kCCDecrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), key, 16, iv,
                sealed, moved, &opened, opened.count, &openedLength) == kCCSuccess)
        #expect(Array(opened.prefix(openedLength)) == message)
        // Another key's padding does not check out; a key of 15 bytes, or no room, is said by status.
        let other = bytes("000102030405060708090a0b0c0d0e0f")
        #expect(
            CCCrypt(
                CCOperation(kCCDecrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), other, 16, iv,
                sealed, moved, &opened, opened.count, &openedLength) == kCCDecodeError)
        #expect(
            CCCrypt(
                CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), 0, key, 15, iv, plaintext, 16, &out, 16, &moved)
                == kCCParamError)
        var small = [UInt8](repeating: 0, count: 8)
        #expect(
            CCCrypt(
                CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), key, 16, iv,
                plaintext, 16, &small, small.count, &moved) == kCCBufferTooSmall)
        #expect(moved == 32)
    }

    @Test("PBKDF2-HMAC-SHA1, RFC 6070 (2 iterations)")
    func pbkdf2() {
        let password = Array("password".utf8CString.dropLast())
        let salt = Array("salt".utf8)
        var derived = [UInt8](repeating: 0, count: 20)
        #expect(
            CCKeyDerivationPBKDF(
                CCPBKDFAlgorithm(kCCPBKDF2), password, password.count, salt, salt.count,
                CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 2, &derived, derived.count) == kCCSuccess)
        #expect(hex(derived) == "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957")
        #expect(
            CCKeyDerivationPBKDF(
                CCPBKDFAlgorithm(kCCPBKDF2), password, password.count, salt, salt.count, 99, 2, &derived, 20)
                == kCCParamError)
    }
}
