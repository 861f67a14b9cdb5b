import CLibCrypto

// CommonCrypto's one-shot digests (CommonDigest.h), with Apple's names, types and lengths, on OpenSSL.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

/// The length type of CommonCrypto's digest functions.
public typealias CC_LONG = UInt32

/// The length of an MD5 digest.
public let CC_MD5_DIGEST_LENGTH: Int32 = 16
/// The length of a SHA-1 digest.
public let CC_SHA1_DIGEST_LENGTH: Int32 = 20
/// The length of a SHA-224 digest.
public let CC_SHA224_DIGEST_LENGTH: Int32 = 28
/// The length of a SHA-256 digest.
public let CC_SHA256_DIGEST_LENGTH: Int32 = 32
/// The length of a SHA-384 digest.
public let CC_SHA384_DIGEST_LENGTH: Int32 = 48
/// The length of a SHA-512 digest.
public let CC_SHA512_DIGEST_LENGTH: Int32 = 64

/// Hashes `len` bytes at `data` with `function` into `md`, which must hold the digest; returns `md` (`nil` when
/// `md` is `nil` or the hash fails, which Apple's functions never report otherwise).
private func digest(
    _ function: OpaquePointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?
) -> UnsafeMutablePointer<UInt8>? {
    guard let md else { return nil }
    var empty: UInt8 = 0
    let done = withUnsafePointer(to: &empty) { fallback in
        EVP_Digest(data ?? UnsafeRawPointer(fallback), Int(len), md, nil, function, nil)
    }
    return done == 1 ? md : nil
}

/// MD5 of `len` bytes at `data` into `md` (16 bytes); for old protocols only.
@discardableResult
public func CC_MD5(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
    -> UnsafeMutablePointer<UInt8>?
{
    digest(EVP_md5(), data, len, md)
}

/// SHA-1 of `len` bytes at `data` into `md` (20 bytes).
@discardableResult
public func CC_SHA1(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
    -> UnsafeMutablePointer<UInt8>?
{
    digest(EVP_sha1(), data, len, md)
}

/// SHA-224 of `len` bytes at `data` into `md` (28 bytes).
@discardableResult
public func CC_SHA224(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
    -> UnsafeMutablePointer<UInt8>?
{
    digest(EVP_sha224(), data, len, md)
}

/// SHA-256 of `len` bytes at `data` into `md` (32 bytes).
@discardableResult
public func CC_SHA256(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
    -> UnsafeMutablePointer<UInt8>?
{
    digest(EVP_sha256(), data, len, md)
}

/// SHA-384 of `len` bytes at `data` into `md` (48 bytes).
@discardableResult
public func CC_SHA384(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
    -> UnsafeMutablePointer<UInt8>?
{
    digest(EVP_sha384(), data, len, md)
}

/// SHA-512 of `len` bytes at `data` into `md` (64 bytes).
@discardableResult
public func CC_SHA512(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
    -> UnsafeMutablePointer<UInt8>?
{
    digest(EVP_sha512(), data, len, md)
}
