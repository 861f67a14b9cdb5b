import CLibCrypto
import Foundation
import KeychainCore

// Apple's external representations (`SecKeyCopyExternalRepresentation`, `SecKeyCreateWithData`): RSA keys as PKCS#1
// DER (`RSAPublicKey`, `RSAPrivateKey`); EC keys as ANSI X9.63, `04 || X || Y` for a public key and
// `04 || X || Y || K` for a private one, each number as long as the curve's field.

/// `EVP_PKEY_fromdata` selections (OpenSSL's `EVP_PKEY_PUBLIC_KEY` and `EVP_PKEY_KEYPAIR`, macros Swift cannot
/// import): every parameter, with the public key, or with both halves.
private let selectPublicKey: Int32 = 0x86
private let selectKeyPair: Int32 = 0x87

/// A parameter name that outlives the parameters built with it: OpenSSL keeps the pointer to a key's name, not a copy,
/// so a name Swift bridges for one call (as it does the imported `OSSL_PKEY_PARAM_…` macros) would dangle.
private func parameterName(_ name: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}

extension AsymmetricKey {
    /// The key's external representation: PKCS#1 for RSA, X9.63 for EC. The caller wipes a private one when done.
    package func externalRepresentation() throws(EngineError) -> Data {
        guard isPrivate else { return try publicRepresentation() }
        switch kind {
        case .rsa:
            return try Self.der("write the RSA private key") { i2d_PrivateKey(handle, $0) }
        case .ec(let curve):
            var scalar: OpaquePointer?
            try OpenSSLFailure.check(
                EVP_PKEY_get_bn_param(handle, OSSL_PKEY_PARAM_PRIV_KEY, &scalar), "read the EC private key")
            guard let scalar else { throw OpenSSLFailure.error(.internalComponent, "read the EC private key") }
            defer { BN_clear_free(scalar) }
            var bytes = [UInt8](repeating: 0, count: curve.fieldBytes)
            guard BN_bn2binpad(scalar, &bytes, Int32(bytes.count)) == Int32(bytes.count) else {
                throw OpenSSLFailure.error(.internalComponent, "write the EC private key")
            }
            defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
            return try publicRepresentation() + Data(bytes)
        }
    }

    /// The public half's external representation.
    package func publicRepresentation() throws(EngineError) -> Data {
        switch kind {
        case .rsa:
            return try Self.der("write the RSA public key") { i2d_PublicKey(handle, $0) }
        case .ec(let curve):
            var bytes = [UInt8](repeating: 0, count: 1 + 2 * curve.fieldBytes)
            var length = 0
            try OpenSSLFailure.check(
                EVP_PKEY_get_octet_string_param(
                    handle, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &bytes, bytes.count, &length),
                "read the EC public key")
            guard length == bytes.count, bytes.first == 4 else {
                throw EngineError(.internalComponent, "the EC public key is not an uncompressed point")
            }
            return Data(bytes)
        }
    }

    /// A key from its external representation. The data decides its size (Apple ignores a size given beside it);
    /// `kind` says RSA or EC (the curve is read from the length) and `isPrivate` which half it is. A key that is
    /// not well formed, whose point is not on its curve, or whose halves do not match is `errSecParam`, naming why.
    /// `checking` false skips the point and pair checks for bytes the keychain itself wrote and authenticated
    /// (a stored key read to be used): they were checked when the key was stored.
    package static func importing(
        _ data: Data, kind: Kind, isPrivate: Bool, checking: Bool = true
    ) throws(EngineError) -> AsymmetricKey {
        let half = isPrivate ? "private" : "public"
        switch kind {
        case .rsa:
            let key = try fromDER(data, isPrivate: isPrivate, what: "an RSA \(half) key")
            guard rsaSizes.contains(key.sizeInBits) || !isPrivate && (512...16384).contains(key.sizeInBits) else {
                throw EngineError(.param, "an RSA key of \(key.sizeInBits) bits is not supported")
            }
            if checking { try key.check(what: "an RSA \(half) key") }
            return key
        case .ec:
            let bytes = [UInt8](data)
            guard bytes.first == 4,
                let curve = Curve.allCases.first(where: {
                    bytes.count == 1 + (isPrivate ? 3 : 2) * $0.fieldBytes
                })
            else {
                throw EngineError(
                    .param,
                    "\(data.count) bytes are not an X9.63 EC \(half) key (04 || X || Y\(isPrivate ? " || K" : "") "
                        + "on P-256, P-384 or P-521)")
            }
            let key = try fromParameters(bytes, curve: curve, isPrivate: isPrivate)
            if checking { try key.check(what: "an EC \(half) key on \(curve.name)") }
            return key
        }
    }

    /// Checks that a key read from outside is one: a public point on its curve, an RSA public key that makes
    /// sense, and a private key whose halves match.
    private func check(what: String) throws(EngineError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, handle, nil) else {
            throw OpenSSLFailure.error(.internalComponent, "check \(what)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let valid = isPrivate ? EVP_PKEY_pairwise_check(context) : EVP_PKEY_public_check(context)
        guard valid == 1 else { throw OpenSSLFailure.error(.param, "\(what) that is not valid") }
    }

    private static func fromDER(_ data: Data, isPrivate: Bool, what: String) throws(EngineError) -> AsymmetricKey {
        let bytes = [UInt8](data)
        let made: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key =
                isPrivate
                ? d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, buffer.count)
                : d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, buffer.count)
            // Every byte is the key's: trailing bytes are not a key.
            guard let key, let base = buffer.baseAddress, cursor == base + buffer.count else {
                if let key { EVP_PKEY_free(key) }
                return nil
            }
            return key
        }
        guard let made else {
            throw OpenSSLFailure.error(.param, "\(data.count) bytes are not \(what) in PKCS#1 DER")
        }
        return AsymmetricKey(handle: made, kind: .rsa, isPrivate: isPrivate)
    }

    private static func fromParameters(
        _ bytes: [UInt8], curve: Curve, isPrivate: Bool
    ) throws(EngineError) -> AsymmetricKey {
        let pointLength = 1 + 2 * curve.fieldBytes
        var scalar: OpaquePointer?
        defer { if let scalar { BN_clear_free(scalar) } }
        if isPrivate {
            scalar = BN_secure_new()
            let read = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { BN_bin2bn($0 + pointLength, Int32(curve.fieldBytes), scalar) } != nil
            }
            guard scalar != nil, read else { throw OpenSSLFailure.error(.internalComponent, "read an EC private key") }
        }
        // The builder keeps pointers to the values pushed and copies them only when it makes the parameters: every
        // buffer stays alive until then.
        let made: Result<OpaquePointer, EngineError> = curve.name.withCString { name in
            bytes.withUnsafeBufferPointer { point in
                Result { () throws(EngineError) -> OpaquePointer in
                    guard let builder = OSSL_PARAM_BLD_new() else {
                        throw OpenSSLFailure.error(.internalComponent, "build an EC key")
                    }
                    defer { OSSL_PARAM_BLD_free(builder) }
                    try OpenSSLFailure.check(
                        OSSL_PARAM_BLD_push_utf8_string(builder, parameterName("group"), name, 0), "build an EC key")
                    try OpenSSLFailure.check(
                        OSSL_PARAM_BLD_push_octet_string(builder, parameterName("pub"), point.baseAddress, pointLength),
                        "build an EC key")
                    if let scalar {
                        try OpenSSLFailure.check(
                            OSSL_PARAM_BLD_push_BN(builder, parameterName("priv"), scalar), "build an EC key")
                    }
                    guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
                        throw OpenSSLFailure.error(.internalComponent, "build an EC key")
                    }
                    defer { OSSL_PARAM_free(parameters) }
                    guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
                        throw OpenSSLFailure.error(.internalComponent, "libcrypto has no EC keys")
                    }
                    defer { EVP_PKEY_CTX_free(context) }
                    try OpenSSLFailure.check(EVP_PKEY_fromdata_init(context), "read an EC key")
                    var key: OpaquePointer?
                    try OpenSSLFailure.check(
                        EVP_PKEY_fromdata(context, &key, isPrivate ? selectKeyPair : selectPublicKey, parameters),
                        .param, "read an EC key on \(curve.name)")
                    guard let key else { throw OpenSSLFailure.error(.param, "read an EC key on \(curve.name)") }
                    return key
                }
            }
        }
        return AsymmetricKey(handle: try made.get(), kind: .ec(curve), isPrivate: isPrivate)
    }

    /// The DER bytes an `i2d_…` function writes.
    private static func der(
        _ what: String, _ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(EngineError) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        let length = write(&output)
        guard length > 0, let output else { throw OpenSSLFailure.error(.internalComponent, what) }
        defer {
            OPENSSL_cleanse(output, Int(length))
            CRYPTO_free(output, #fileID, #line)
        }
        return Data(bytes: output, count: Int(length))
    }
}
