import CLibCrypto
import Foundation
import KeychainCore

extension AsymmetricKey {
    /// A key over an `EVP_PKEY` this value takes ownership of (a certificate's key, a PKCS#12 file's): RSA or a NIST
    /// curve, else errSecUnimplemented naming the algorithm. The key is freed on failure.
    static func adopting(_ handle: OpaquePointer, isPrivate: Bool) throws(EngineError) -> AsymmetricKey {
        switch EVP_PKEY_get_base_id(handle) {
        case EVP_PKEY_RSA:
            return AsymmetricKey(handle: handle, kind: .rsa, isPrivate: isPrivate)
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            let found = EVP_PKEY_get_utf8_string_param(handle, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length)
            let group =
                found == 1 ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            let curves: [String: Curve] = [
                "prime256v1": .p256, "P-256": .p256, "secp384r1": .p384, "P-384": .p384, "secp521r1": .p521,
                "P-521": .p521,
            ]
            guard let curve = curves[group] else {
                EVP_PKEY_free(handle)
                throw EngineError(.unimplemented, "an EC key on the curve \"\(group)\" (only P-256, P-384, P-521)")
            }
            return AsymmetricKey(handle: handle, kind: .ec(curve), isPrivate: isPrivate)
        case let other:
            EVP_PKEY_free(handle)
            throw EngineError(.unimplemented, "a key of OpenSSL type \(other) (only RSA and EC keys)")
        }
    }
}
