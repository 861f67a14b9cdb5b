import CLibCrypto

// CommonCrypto's PBKDF2 (CommonKeyDerivation.h), with Apple's names and values, on OpenSSL.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

/// The key derivation (only PBKDF2).
public typealias CCPBKDFAlgorithm = UInt32
/// The pseudo-random function of PBKDF2.
public typealias CCPseudoRandomAlgorithm = UInt32

/// PBKDF2.
public let kCCPBKDF2: CCPBKDFAlgorithm = 2
/// HMAC-SHA1.
public let kCCPRFHmacAlgSHA1: CCPseudoRandomAlgorithm = 1
/// HMAC-SHA224.
public let kCCPRFHmacAlgSHA224: CCPseudoRandomAlgorithm = 2
/// HMAC-SHA256.
public let kCCPRFHmacAlgSHA256: CCPseudoRandomAlgorithm = 3
/// HMAC-SHA384.
public let kCCPRFHmacAlgSHA384: CCPseudoRandomAlgorithm = 4
/// HMAC-SHA512.
public let kCCPRFHmacAlgSHA512: CCPseudoRandomAlgorithm = 5

/// Derives `derivedKeyLen` bytes from a password and salt with PBKDF2 and `rounds` iterations of `prf`; returns
/// `kCCSuccess`, or `kCCParamError` for an unknown algorithm or function, no rounds, or no room for the key.
public func CCKeyDerivationPBKDF(
    _ algorithm: CCPBKDFAlgorithm, _ password: UnsafePointer<CChar>?, _ passwordLen: Int,
    _ salt: UnsafePointer<UInt8>?, _ saltLen: Int, _ prf: CCPseudoRandomAlgorithm, _ rounds: UInt32,
    _ derivedKey: UnsafeMutablePointer<UInt8>?, _ derivedKeyLen: Int
) -> Int32 {
    let function: OpaquePointer?
    switch prf {
    case kCCPRFHmacAlgSHA1: function = EVP_sha1()
    case kCCPRFHmacAlgSHA224: function = EVP_sha224()
    case kCCPRFHmacAlgSHA256: function = EVP_sha256()
    case kCCPRFHmacAlgSHA384: function = EVP_sha384()
    case kCCPRFHmacAlgSHA512: function = EVP_sha512()
    default: return kCCParamError
    }
    guard algorithm == kCCPBKDF2, rounds > 0, rounds <= UInt32(Int32.max), let derivedKey, derivedKeyLen > 0 else {
        return kCCParamError
    }
    var empty: CChar = 0
    let done = withUnsafePointer(to: &empty) { fallback in
        PKCS5_PBKDF2_HMAC(
            password ?? fallback, Int32(passwordLen),
            salt ?? UnsafeRawPointer(fallback).assumingMemoryBound(to: UInt8.self), Int32(saltLen), Int32(rounds),
            function, Int32(derivedKeyLen), derivedKey)
    }
    return done == 1 ? kCCSuccess : kCCParamError
}
