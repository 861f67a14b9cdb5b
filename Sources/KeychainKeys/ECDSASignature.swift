import CLibCrypto
import Foundation
import KeychainCore

/// ECDSA signatures in their two forms: DER (X9.62, a SEQUENCE of two INTEGERs) and RFC 4754's `r || s`.
enum ECDSASignature {
    /// `r || s`, each padded to the field's length, from a DER signature.
    static func raw(fromDER der: Data, fieldBytes: Int) throws(EngineError) -> Data {
        let parsed: OpaquePointer? = der.withUnsafeBytes { bytes in
            var cursor = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_ECDSA_SIG(nil, &cursor, bytes.count)
        }
        guard let parsed else { throw OpenSSLFailure.error(.internalComponent, "read an ECDSA signature") }
        defer { ECDSA_SIG_free(parsed) }
        var output = [UInt8](repeating: 0, count: 2 * fieldBytes)
        let r = ECDSA_SIG_get0_r(parsed)
        let s = ECDSA_SIG_get0_s(parsed)
        let written = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(fieldBytes)) == Int32(fieldBytes)
                && BN_bn2binpad(s, base + fieldBytes, Int32(fieldBytes)) == Int32(fieldBytes)
        }
        guard written else { throw OpenSSLFailure.error(.internalComponent, "write an ECDSA signature") }
        return Data(output)
    }

    /// The DER form of an `r || s` signature, or `nil` when it is not one for this field length.
    static func der(fromRaw raw: Data, fieldBytes: Int) -> Data? {
        guard raw.count == 2 * fieldBytes, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let bytes = [UInt8](raw)
        guard let r = BN_bin2bn(bytes, Int32(fieldBytes), nil) else { return nil }
        guard
            let s = bytes.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress.flatMap { BN_bin2bn($0 + fieldBytes, Int32(fieldBytes), nil) }
            })
        else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Data(bytes: output, count: Int(length))
    }
}
