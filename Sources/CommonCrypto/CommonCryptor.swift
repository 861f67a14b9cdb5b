import CLibCrypto

// CommonCrypto's one-shot symmetric cipher (CommonCryptor.h) for AES, CBC or ECB, with PKCS#7 padding or none,
// with Apple's names, values and statuses, on OpenSSL.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

/// Encrypt or decrypt.
public typealias CCOperation = UInt32
/// The cipher.
public typealias CCAlgorithm = UInt32
/// Options (padding, mode).
public typealias CCOptions = UInt32
/// A status of the cryptor functions.
public typealias CCCryptorStatus = Int32

/// Encrypt.
public let kCCEncrypt: CCOperation = 0
/// Decrypt.
public let kCCDecrypt: CCOperation = 1
/// AES (any of its key sizes).
public let kCCAlgorithmAES: CCAlgorithm = 0
/// AES, under its older name.
public let kCCAlgorithmAES128: CCAlgorithm = 0
/// PKCS#7 padding.
public let kCCOptionPKCS7Padding: CCOptions = 0x0001
/// Electronic codebook mode instead of CBC.
public let kCCOptionECBMode: CCOptions = 0x0002
/// AES-128's key size.
public let kCCKeySizeAES128 = 16
/// AES-192's key size.
public let kCCKeySizeAES192 = 24
/// AES-256's key size.
public let kCCKeySizeAES256 = 32
/// AES's block size.
public let kCCBlockSizeAES128 = 16
/// Success.
public let kCCSuccess: CCCryptorStatus = 0
/// An illegal parameter (an unknown algorithm or option, a key of the wrong size).
public let kCCParamError: CCCryptorStatus = -4300
/// The output buffer is too small; `dataOutMoved` says how much is needed.
public let kCCBufferTooSmall: CCCryptorStatus = -4301
/// Memory could not be had.
public let kCCMemoryFailure: CCCryptorStatus = -4302
/// Input that is not a whole number of blocks, without padding.
public let kCCAlignmentError: CCCryptorStatus = -4303
/// Input that does not decrypt (its padding is wrong).
public let kCCDecodeError: CCCryptorStatus = -4304
/// An operation not implemented.
public let kCCUnimplemented: CCCryptorStatus = -4305

/// Encrypts or decrypts `dataInLength` bytes in one call. `iv` (16 bytes, zeros when `nil`) is used in CBC mode.
/// The output needs the input's length plus one block when padding; a smaller `dataOutAvailable` is
/// `kCCBufferTooSmall` with the size needed in `dataOutMoved`.
public func CCCrypt(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions, _ key: UnsafeRawPointer?, _ keyLength: Int,
    _ iv: UnsafeRawPointer?, _ dataIn: UnsafeRawPointer?, _ dataInLength: Int, _ dataOut: UnsafeMutableRawPointer?,
    _ dataOutAvailable: Int, _ dataOutMoved: UnsafeMutablePointer<Int>?
) -> CCCryptorStatus {
    guard op == kCCEncrypt || op == kCCDecrypt, alg == kCCAlgorithmAES,
        options & ~(kCCOptionPKCS7Padding | kCCOptionECBMode) == 0, let key
    else { return kCCParamError }
    let ecb = options & kCCOptionECBMode != 0
    let padding = options & kCCOptionPKCS7Padding != 0
    let cipher: OpaquePointer?
    switch (keyLength, ecb) {
    case (16, false): cipher = EVP_aes_128_cbc()
    case (24, false): cipher = EVP_aes_192_cbc()
    case (32, false): cipher = EVP_aes_256_cbc()
    case (16, true): cipher = EVP_aes_128_ecb()
    case (24, true): cipher = EVP_aes_192_ecb()
    case (32, true): cipher = EVP_aes_256_ecb()
    default: return kCCParamError
    }
    if !padding, dataInLength % kCCBlockSizeAES128 != 0 { return kCCAlignmentError }
    let needed = op == kCCEncrypt && padding ? (dataInLength / 16 + 1) * 16 : dataInLength
    guard dataOutAvailable >= needed || (op == kCCDecrypt && dataOutAvailable >= dataInLength) else {
        dataOutMoved?.pointee = needed
        return kCCBufferTooSmall
    }
    guard let dataOut, let context = EVP_CIPHER_CTX_new() else { return kCCMemoryFailure }
    defer { EVP_CIPHER_CTX_free(context) }
    let zeroIV = [UInt8](repeating: 0, count: 16)
    let started = zeroIV.withUnsafeBufferPointer { zeros in
        EVP_CipherInit_ex(
            context, cipher, nil, key.assumingMemoryBound(to: UInt8.self),
            ecb ? nil : (iv?.assumingMemoryBound(to: UInt8.self) ?? zeros.baseAddress), op == kCCEncrypt ? 1 : 0)
    }
    guard started == 1, EVP_CIPHER_CTX_set_padding(context, padding ? 1 : 0) == 1 else { return kCCParamError }
    let output = dataOut.assumingMemoryBound(to: UInt8.self)
    var written: Int32 = 0
    var empty: UInt8 = 0
    let updated = withUnsafePointer(to: &empty) { fallback in
        EVP_CipherUpdate(
            context, output, &written,
            (dataIn ?? UnsafeRawPointer(fallback)).assumingMemoryBound(to: UInt8.self), Int32(dataInLength))
    }
    guard updated == 1 else { return kCCParamError }
    var last: Int32 = 0
    guard EVP_CipherFinal_ex(context, output + Int(written), &last) == 1 else {
        ERR_clear_error()
        return op == kCCDecrypt ? kCCDecodeError : kCCAlignmentError
    }
    dataOutMoved?.pointee = Int(written + last)
    return kCCSuccess
}
