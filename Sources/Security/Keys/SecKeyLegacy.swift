import Foundation
import KeychainCore
import KeychainKeys

// The functions older key code and wrapper libraries still call (SecKey.h's "legacy" section), with raw buffers,
// `SecPadding` and plain statuses: errSecParam for input a padding cannot take or a buffer too small, and
// errSSLCrypto (-9809) for a signature that does not verify, as Apple's.

/// `errSSLCrypto`: what `SecKeyRawVerify` answers for a signature that does not verify.
public let errSSLCrypto: OSStatus = -9809

/// The padding of the legacy functions, with Apple's values.
public struct SecPadding: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: UInt32
    /// Creates a padding from its value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No padding: one whole block.
    public static let none = SecPadding([])
    /// PKCS#1 v1.5.
    public static let PKCS1 = SecPadding(rawValue: 1)
    /// OAEP with SHA-1 (encryption only).
    public static let OAEP = SecPadding(rawValue: 2)
    /// A raw signature (no padding), for `SecKeyRawSign`.
    public static let sigRaw = SecPadding(rawValue: 0x4000)
    /// PKCS#1 v1.5 over an MD2 digest (not supported: errSecParam).
    public static let PKCS1MD2 = SecPadding(rawValue: 0x8000)
    /// PKCS#1 v1.5 over an MD5 digest (not supported: errSecParam).
    public static let PKCS1MD5 = SecPadding(rawValue: 0x8001)
    /// PKCS#1 v1.5 over a SHA-1 digest.
    public static let PKCS1SHA1 = SecPadding(rawValue: 0x8002)
    /// PKCS#1 v1.5 over a SHA-224 digest.
    public static let PKCS1SHA224 = SecPadding(rawValue: 0x8003)
    /// PKCS#1 v1.5 over a SHA-256 digest.
    public static let PKCS1SHA256 = SecPadding(rawValue: 0x8004)
    /// PKCS#1 v1.5 over a SHA-384 digest.
    public static let PKCS1SHA384 = SecPadding(rawValue: 0x8005)
    /// PKCS#1 v1.5 over a SHA-512 digest.
    public static let PKCS1SHA512 = SecPadding(rawValue: 0x8006)

    /// The signature algorithm the padding means for `key` (ECDSA signs the digest given, whatever the padding).
    func signatureAlgorithm(for key: AsymmetricKey) throws(EngineError) -> SecKeyAlgorithm {
        guard key.kind == .rsa else { return .ecdsaSignatureDigestX962 }
        switch self {
        case .none, .sigRaw: return .rsaSignatureRaw
        case .PKCS1: return .rsaSignatureDigestPKCS1v15Raw
        case .PKCS1SHA1: return .rsaSignatureDigestPKCS1v15SHA1
        case .PKCS1SHA224: return .rsaSignatureDigestPKCS1v15SHA224
        case .PKCS1SHA256: return .rsaSignatureDigestPKCS1v15SHA256
        case .PKCS1SHA384: return .rsaSignatureDigestPKCS1v15SHA384
        case .PKCS1SHA512: return .rsaSignatureDigestPKCS1v15SHA512
        default: throw EngineError(.param, "the padding 0x\(String(rawValue, radix: 16)) does not sign")
        }
    }

    /// The signature scheme the padding means for `key`.
    func signatureScheme(for key: AsymmetricKey) throws(EngineError) -> SignatureScheme {
        guard case .signature(let scheme) = try signatureAlgorithm(for: key).operation else {
            throw EngineError(.internalComponent, "a legacy padding names no signature")
        }
        return scheme
    }

    /// The encryption algorithm it means.
    func encryptionAlgorithm() throws(EngineError) -> SecKeyAlgorithm {
        switch self {
        case .none: return .rsaEncryptionRaw
        case .PKCS1: return .rsaEncryptionPKCS1
        case .OAEP: return .rsaEncryptionOAEPSHA1
        default: throw EngineError(.param, "the padding 0x\(String(rawValue, radix: 16)) does not encrypt")
        }
    }

    /// The encryption padding it means.
    func encryptionPadding() throws(EngineError) -> EncryptionPadding {
        guard case .encryption(let padding) = try encryptionAlgorithm().operation else {
            throw EngineError(.internalComponent, "a legacy padding names no encryption")
        }
        return padding
    }
}

/// Runs a legacy operation: its status, its failure recorded as the thread's last message.
private func legacyStatus(_ body: () throws(EngineError) -> Void) -> OSStatus {
    do throws(EngineError) {
        try body()
        LastErrorMessage.record(nil)
        return errSecSuccess
    } catch {
        LastErrorMessage.record(error.message)
        return error.code.rawValue
    }
}

/// Copies `output` into a caller's buffer of `*length` bytes and sets `*length` to its size; a buffer too small is
/// errSecParam (nothing copied).
private func deliver(_ output: Data, to buffer: UnsafeMutablePointer<UInt8>, length: UnsafeMutablePointer<Int>)
    throws(EngineError)
{
    guard output.count <= length.pointee else {
        throw EngineError(.param, "the output buffer holds \(length.pointee) bytes; \(output.count) are needed")
    }
    output.copyBytes(to: buffer, count: output.count)
    length.pointee = output.count
}

/// Encrypts `plainTextLen` bytes with an RSA key into `cipherText` (`*cipherTextLen` bytes on entry, the
/// ciphertext's length on return).
public func SecKeyEncrypt(
    _ key: SecKey, _ padding: SecPadding, _ plainText: UnsafePointer<UInt8>, _ plainTextLen: Int,
    _ cipherText: UnsafeMutablePointer<UInt8>, _ cipherTextLen: UnsafeMutablePointer<Int>
) -> OSStatus {
    legacyStatus { () throws(EngineError) in
        let sealed = try key.key.encrypt(
            Data(bytes: plainText, count: plainTextLen), padding: padding.encryptionPadding())
        try deliver(sealed, to: cipherText, length: cipherTextLen)
    }
}

/// Decrypts one block with an RSA private key into `plainText`.
public func SecKeyDecrypt(
    _ key: SecKey, _ padding: SecPadding, _ cipherText: UnsafePointer<UInt8>, _ cipherTextLen: Int,
    _ plainText: UnsafeMutablePointer<UInt8>, _ plainTextLen: UnsafeMutablePointer<Int>
) -> OSStatus {
    legacyStatus { () throws(EngineError) in
        let opened = try key.run(
            KeyUse(
                .decrypt, algorithm: padding.encryptionAlgorithm().identifier,
                input: Data(bytes: cipherText, count: cipherTextLen)))
        try deliver(opened, to: plainText, length: plainTextLen)
    }
}

/// Signs `dataToSign` (a digest, as the padding says; for EC keys a digest of any length) into `sig`.
public func SecKeyRawSign(
    _ key: SecKey, _ padding: SecPadding, _ dataToSign: UnsafePointer<UInt8>, _ dataToSignLen: Int,
    _ sig: UnsafeMutablePointer<UInt8>, _ sigLen: UnsafeMutablePointer<Int>
) -> OSStatus {
    legacyStatus { () throws(EngineError) in
        let signature = try key.run(
            KeyUse(
                .sign, algorithm: padding.signatureAlgorithm(for: key.key).identifier,
                input: Data(bytes: dataToSign, count: dataToSignLen)))
        try deliver(signature, to: sig, length: sigLen)
    }
}

/// Checks a signature made by `SecKeyRawSign`: errSecSuccess, or errSSLCrypto when it does not verify.
public func SecKeyRawVerify(
    _ key: SecKey, _ padding: SecPadding, _ signedData: UnsafePointer<UInt8>, _ signedDataLen: Int,
    _ sig: UnsafePointer<UInt8>, _ sigLen: Int
) -> OSStatus {
    var valid = false
    let status = legacyStatus { () throws(EngineError) in
        valid = try key.key.verify(
            Data(bytes: sig, count: sigLen), of: Data(bytes: signedData, count: signedDataLen),
            scheme: try padding.signatureScheme(for: key.key))
    }
    guard status == errSecSuccess, !valid else { return status }
    LastErrorMessage.record("the signature does not verify")
    return errSSLCrypto
}
