import Foundation
import KeychainKeys

/// An algorithm of the key functions (`SecKeyCreateSignature`, `SecKeyCreateEncryptedData`,
/// `SecKeyCopyKeyExchangeResult` …), with Apple's names and identifiers, the ECIES and RSA OAEP AES-GCM hybrids
/// included. `SecKeyIsAlgorithmSupported` answers `false` for an identifier it does not know.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
    /// The identifier, as Apple spells it (`algid:sign:ECDSA:message-X962:SHA256`).
    public var rawValue: CFString { NSString(string: identifier) }
    /// The identifier as text.
    let identifier: String

    /// The algorithm with this identifier.
    public init(rawValue: CFString) { identifier = rawValue as String }

    init(_ identifier: String) { self.identifier = identifier }

    /// RSA with no padding: one whole block.
    public static let rsaSignatureRaw = SecKeyAlgorithm("algid:sign:RSA:raw")
    /// PKCS#1 v1.5 padding around the data as given, no DigestInfo.
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15")
    /// PKCS#1 v1.5 over a SHA1 digest.
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// PKCS#1 v1.5 over a SHA224 digest.
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// PKCS#1 v1.5 over a SHA256 digest.
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// PKCS#1 v1.5 over a SHA384 digest.
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// PKCS#1 v1.5 over a SHA512 digest.
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// PKCS#1 v1.5 over a message hashed with SHA1.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA1")
    /// PKCS#1 v1.5 over a message hashed with SHA224.
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA224")
    /// PKCS#1 v1.5 over a message hashed with SHA256.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA256")
    /// PKCS#1 v1.5 over a message hashed with SHA384.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA384")
    /// PKCS#1 v1.5 over a message hashed with SHA512.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA512")
    /// PSS over a SHA1 digest (MGF1 SHA1, salt the digest's length).
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// PSS over a SHA224 digest (MGF1 SHA224, salt the digest's length).
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
    /// PSS over a SHA256 digest (MGF1 SHA256, salt the digest's length).
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// PSS over a SHA384 digest (MGF1 SHA384, salt the digest's length).
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// PSS over a SHA512 digest (MGF1 SHA512, salt the digest's length).
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// PSS over a message hashed with SHA1.
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// PSS over a message hashed with SHA224.
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA224:SHA224:24")
    /// PSS over a message hashed with SHA256.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// PSS over a message hashed with SHA384.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// PSS over a message hashed with SHA512.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    /// ECDSA over a digest of any length, the signature as r || s.
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:RFC4754")
    /// ECDSA over a digest of any length, the signature in DER.
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962")
    /// ECDSA over a SHA1 digest, DER.
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA1")
    /// ECDSA over a SHA224 digest, DER.
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA224")
    /// ECDSA over a SHA256 digest, DER.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA over a SHA384 digest, DER.
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA over a SHA512 digest, DER.
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA512")
    /// ECDSA over a message hashed with SHA1, DER.
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA1")
    /// ECDSA over a message hashed with SHA224, DER.
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA224")
    /// ECDSA over a message hashed with SHA256, DER.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA over a message hashed with SHA384, DER.
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA over a message hashed with SHA512, DER.
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA512")
    /// ECDSA over a SHA1 digest, r || s.
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA1")
    /// ECDSA over a SHA224 digest, r || s.
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA224")
    /// ECDSA over a SHA256 digest, r || s.
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA256")
    /// ECDSA over a SHA384 digest, r || s.
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA384")
    /// ECDSA over a SHA512 digest, r || s.
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA512")
    /// ECDSA over a message hashed with SHA1, r || s.
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA1")
    /// ECDSA over a message hashed with SHA224, r || s.
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA224")
    /// ECDSA over a message hashed with SHA256, r || s.
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA256")
    /// ECDSA over a message hashed with SHA384, r || s.
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA384")
    /// ECDSA over a message hashed with SHA512, r || s.
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA512")
    /// RSA with no padding: one whole block below the modulus.
    public static let rsaEncryptionRaw = SecKeyAlgorithm("algid:encrypt:RSA:raw")
    /// RSA with PKCS#1 v1.5 padding.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
    /// RSA-OAEP with SHA1 and MGF1 SHA1.
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
    /// RSA-OAEP with SHA224 and MGF1 SHA224.
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224")
    /// RSA-OAEP with SHA256 and MGF1 SHA256.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
    /// RSA-OAEP with SHA384 and MGF1 SHA384.
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
    /// RSA-OAEP with SHA512 and MGF1 SHA512.
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
    /// ECDH: the shared secret.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
    /// Cofactor ECDH: the shared secret.
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
    /// ECDH, the secret through the X9.63 KDF with SHA1.
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA1")
    /// ECDH, the secret through the X9.63 KDF with SHA224.
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA224")
    /// ECDH, the secret through the X9.63 KDF with SHA256.
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA256")
    /// ECDH, the secret through the X9.63 KDF with SHA384.
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA384")
    /// ECDH, the secret through the X9.63 KDF with SHA512.
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Cofactor ECDH, the secret through the X9.63 KDF with SHA1.
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// Cofactor ECDH, the secret through the X9.63 KDF with SHA224.
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// Cofactor ECDH, the secret through the X9.63 KDF with SHA256.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// Cofactor ECDH, the secret through the X9.63 KDF with SHA384.
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// Cofactor ECDH, the secret through the X9.63 KDF with SHA512.
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA512")

    /// RSA OAEP with SHA1 wrapping an AES-GCM key for the message.
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1:AESGCM")
    /// RSA OAEP with SHA224 wrapping an AES-GCM key for the message.
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224:AESGCM")
    /// RSA OAEP with SHA256 wrapping an AES-GCM key for the message.
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    /// RSA OAEP with SHA384 wrapping an AES-GCM key for the message.
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384:AESGCM")
    /// RSA OAEP with SHA512 wrapping an AES-GCM key for the message.
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512:AESGCM")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA1, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA224, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA256, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA384, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA512, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA224 deriving the IV too, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA256 deriving the IV too, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA384 deriving the IV too, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES: standard ECDH, the X9.63 KDF with SHA512 deriving the IV too, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA1, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA224, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA256, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA384, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA512, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA224 deriving the IV too, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA256 deriving the IV too, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA384 deriving the IV too, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, the X9.63 KDF with SHA512 deriving the IV too, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")

    /// What the algorithm does, for the keys it is for; `nil` for an identifier the key layer does not know.
    var operation: KeyOperation? { KeyOperation(identifier: identifier) }
}
