import CLibCrypto

// CommonCrypto's one-shot HMAC (CommonHMAC.h), with Apple's names and values, on OpenSSL.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

/// An HMAC's hash function.
public typealias CCHmacAlgorithm = UInt32

/// HMAC-SHA1.
public let kCCHmacAlgSHA1: CCHmacAlgorithm = 0
/// HMAC-MD5.
public let kCCHmacAlgMD5: CCHmacAlgorithm = 1
/// HMAC-SHA256.
public let kCCHmacAlgSHA256: CCHmacAlgorithm = 2
/// HMAC-SHA384.
public let kCCHmacAlgSHA384: CCHmacAlgorithm = 3
/// HMAC-SHA512.
public let kCCHmacAlgSHA512: CCHmacAlgorithm = 4
/// HMAC-SHA224.
public let kCCHmacAlgSHA224: CCHmacAlgorithm = 5

/// The OpenSSL hash of an HMAC algorithm, or `nil` for a value Apple does not define.
func hashFunction(of algorithm: CCHmacAlgorithm) -> OpaquePointer? {
    switch algorithm {
    case kCCHmacAlgSHA1: EVP_sha1()
    case kCCHmacAlgMD5: EVP_md5()
    case kCCHmacAlgSHA256: EVP_sha256()
    case kCCHmacAlgSHA384: EVP_sha384()
    case kCCHmacAlgSHA512: EVP_sha512()
    case kCCHmacAlgSHA224: EVP_sha224()
    default: nil
    }
}

/// The HMAC of `dataLength` bytes at `data` under `keyLength` bytes of key, written to `macOut` (as long as the
/// hash's digest). An unknown algorithm writes nothing, as Apple's writes nothing useful.
public func CCHmac(
    _ algorithm: CCHmacAlgorithm, _ key: UnsafeRawPointer?, _ keyLength: Int, _ data: UnsafeRawPointer?,
    _ dataLength: Int, _ macOut: UnsafeMutableRawPointer?
) {
    guard let function = hashFunction(of: algorithm), let macOut else { return }
    var empty: UInt8 = 0
    var length: UInt32 = 0
    withUnsafePointer(to: &empty) { fallback in
        _ = HMAC(
            function, key ?? UnsafeRawPointer(fallback), Int32(keyLength),
            (data ?? UnsafeRawPointer(fallback)).assumingMemoryBound(to: UInt8.self), dataLength,
            macOut.assumingMemoryBound(to: UInt8.self), &length)
    }
}
