import CLibCrypto
import Foundation
import KeychainCore

/// An RSA or NIST-curve key, public or private, held by OpenSSL's libcrypto (an `EVP_PKEY`, freed — and its private
/// half cleared — when the last reference goes). Immutable once made, so it may be shared between threads.
///
/// The key layer under `Security`'s `SecKey` and, later, keychaind's keys that never leave it: it knows no
/// CoreFoundation type, only bytes in Apple's external representations (PKCS#1 for RSA, ANSI X9.63 for EC).
package final class AsymmetricKey: @unchecked Sendable {
    /// The key's family.
    package enum Kind: Sendable, Hashable {
        /// RSA.
        case rsa
        /// ECDSA/ECDH on a NIST prime curve.
        case ec(Curve)
    }

    /// The NIST prime curves Apple's `kSecAttrKeyTypeECSECPrimeRandom` covers.
    package enum Curve: Int, Sendable, Hashable, CaseIterable {
        case p256 = 256
        case p384 = 384
        case p521 = 521

        /// OpenSSL's name for the curve.
        var name: String {
            switch self {
            case .p256: "P-256"
            case .p384: "P-384"
            case .p521: "P-521"
            }
        }

        /// The bytes of one coordinate or of the private scalar.
        package var fieldBytes: Int { (rawValue + 7) / 8 }
    }

    /// The `EVP_PKEY` (the package's bench times libcrypto on it directly, as the floor of the key operations).
    package let handle: OpaquePointer
    /// RSA or EC, and the curve.
    package let kind: Kind
    /// Whether the key holds its private half.
    package let isPrivate: Bool

    init(handle: OpaquePointer, kind: Kind, isPrivate: Bool) {
        self.handle = handle
        self.kind = kind
        self.isPrivate = isPrivate
    }

    deinit { EVP_PKEY_free(handle) }

    /// The key's size in bits (the modulus for RSA, the curve's order for EC).
    package var sizeInBits: Int { Int(EVP_PKEY_get_bits(handle)) }

    /// The bytes of the largest output of one operation with the key: the modulus for RSA, a DER ECDSA signature for
    /// EC (what Apple's `SecKeyGetBlockSize` answers).
    package var blockSize: Int { Int(EVP_PKEY_get_size(handle)) }

    // MARK: Making keys

    /// RSA key sizes this layer makes and accepts, as Apple's `SecKeyCreateRandomKey` does.
    package static let rsaSizes = 1024...4096

    /// A new RSA private key of `bits` (1024 through 4096, a multiple of 8).
    package static func generateRSA(bits: Int) throws(EngineError) -> AsymmetricKey {
        guard rsaSizes.contains(bits), bits % 8 == 0 else {
            throw EngineError(.param, "an RSA key of \(bits) bits: the size must be a multiple of 8 from 1024 to 4096")
        }
        return try generate(.rsa, algorithm: "RSA") { (context) throws(EngineError) in
            try OpenSSLFailure.check(
                EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), .param, "set the RSA key size to \(bits)")
        }
    }

    /// A new private key on `curve`.
    package static func generateEC(_ curve: Curve) throws(EngineError) -> AsymmetricKey {
        try generate(.ec(curve), algorithm: "EC") { (context) throws(EngineError) in
            try OpenSSLFailure.check(EVP_PKEY_CTX_set_group_name(context, curve.name), "choose the curve \(curve.name)")
        }
    }

    private static func generate(
        _ kind: Kind, algorithm: String, _ configure: (OpaquePointer) throws(EngineError) -> Void
    ) throws(EngineError) -> AsymmetricKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw OpenSSLFailure.error(.internalComponent, "libcrypto has no \(algorithm) keys")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLFailure.check(EVP_PKEY_keygen_init(context), "start making an \(algorithm) key")
        try configure(context)
        var made: OpaquePointer?
        try OpenSSLFailure.check(EVP_PKEY_generate(context, &made), "make an \(algorithm) key")
        guard let made else { throw OpenSSLFailure.error(.internalComponent, "make an \(algorithm) key") }
        return AsymmetricKey(handle: made, kind: kind, isPrivate: true)
    }

    /// The public half (itself, for a public key).
    package func publicKey() throws(EngineError) -> AsymmetricKey {
        guard isPrivate else { return self }
        return try Self.importing(publicRepresentation(), kind: kind, isPrivate: false)
    }
}
