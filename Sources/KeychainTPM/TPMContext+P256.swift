import CSystem
import CTSS2

/// A P-256 key generated inside a TPM (what Apple calls a Secure Enclave key): the TPM's wrapped blob, which only
/// that TPM can load, and the public key.
public struct TPMP256Key: Sendable, Hashable {
    /// The wrapped key, to store.
    public let blob: TPMBlob
    /// The public key in X9.63 form: 0x04, X and Y, 32 bytes each.
    public let publicKey: [UInt8]

    /// The key in `blob`, its public key read from the blob's public area (no TPM needed).
    public init(blob: TPMBlob) throws(TPMError) {
        try blob.require(.p256Key)
        let area = try TPMMarshalling.unmarshalPublic(blob.publicArea).publicArea
        guard area.type == TPMI_ALG_PUBLIC(TPM2_ALG_ECC),
            area.parameters.eccDetail.curveID == TPMI_ECC_CURVE(TPM2_ECC_NIST_P256)
        else { throw TPMError(.invalidBlob, "the TPM blob's public area is not a P-256 key") }
        let x = TPMBuffers.bytes(of: area.unique.ecc.x.buffer, size: area.unique.ecc.x.size)
        let y = TPMBuffers.bytes(of: area.unique.ecc.y.buffer, size: area.unique.ecc.y.size)
        guard x.count <= 32, y.count <= 32 else {
            throw TPMError(.invalidBlob, "the TPM blob's P-256 point has coordinates longer than 32 bytes")
        }
        self.blob = blob
        publicKey = [0x04] + Self.padded(x) + Self.padded(y)
    }

    /// A coordinate as 32 bytes, with the leading zeros the TPM may leave out.
    static func padded(_ coordinate: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 0, count: 32 - coordinate.count) + coordinate
    }
}

extension TPMContext {
    /// Generates a P-256 key inside the TPM for signing and key agreement, usable with `auth` (empty for none;
    /// wrong values count towards the TPM's dictionary-attack lockout). Its private key never leaves the TPM.
    public func createP256Key(auth: [UInt8] = []) throws(TPMError) -> TPMP256Key {
        let blob = try withSession { (session) throws(TPMError) -> TPMBlob in
            var sensitive = TPM2B_SENSITIVE_CREATE()
            defer { ck_zero(&sensitive, MemoryLayout<TPM2B_SENSITIVE_CREATE>.size) }
            sensitive.sensitive.userAuth.size = try Self.authSize(&sensitive.sensitive.userAuth.buffer, auth)
            return try session.create(
                .p256Key, template: TPMTemplates.p256Key(), sensitive: sensitive,
                operation: "creating a P-256 key in the TPM")
        }
        return try TPMP256Key(blob: blob)
    }

    /// Signs a SHA-256 `digest` (32 bytes) with the key, inside the TPM: an ECDSA signature in DER (X9.62), as
    /// `SecKeyCreateSignature` gives for `.ecdsaSignatureDigestX962SHA256`.
    public func sign(digest: [UInt8], with key: TPMP256Key, auth: [UInt8] = []) throws(TPMError) -> [UInt8] {
        guard digest.count == 32 else {
            throw TPMError(.invalidArgument, "a SHA-256 digest is 32 bytes, not \(digest.count)")
        }
        return try withSession { (session) throws(TPMError) -> [UInt8] in
            // The signature is no secret (and not a sized buffer, which alone a session can encrypt).
            try session.withLoaded(
                key.blob, kind: .p256Key, auth: auth, operation: "signing",
                encrypting: TPMA_SESSION(TPMA_SESSION_DECRYPT)
            ) { (handle, encrypted) throws(TPMError) -> [UInt8] in
                var message = TPM2B_DIGEST()
                message.size = try TPMBuffers.fill(&message.buffer, with: digest, what: "the digest")
                var scheme = TPMT_SIG_SCHEME()
                scheme.scheme = TPMI_ALG_SIG_SCHEME(TPM2_ALG_ECDSA)
                scheme.details.ecdsa.hashAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
                // An unrestricted key signs any digest: the null ticket says the TPM did not hash it itself.
                var validation = TPMT_TK_HASHCHECK()
                validation.tag = TPM2_ST(TPM2_ST_HASHCHECK)
                validation.hierarchy = TPMI_RH_HIERARCHY(TPM2_RH_NULL)
                var signature: UnsafeMutablePointer<TPMT_SIGNATURE>?
                try TPMError.check(
                    ck_Esys_Sign(
                        session.esys, handle, encrypted, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                        &message, &scheme, &validation, &signature),
                    "signing with the TPM's P-256 key")
                defer { TPMBuffers.zeroAndFree(signature) }
                guard let signature, signature.pointee.sigAlg == TPMI_ALG_SIG_SCHEME(TPM2_ALG_ECDSA) else {
                    throw TPMError(.failed, "signing: the TPM returned no ECDSA signature")
                }
                let ecdsa = signature.pointee.signature.ecdsa
                return DERSignature.encode(
                    r: TPMBuffers.bytes(of: ecdsa.signatureR.buffer, size: ecdsa.signatureR.size),
                    s: TPMBuffers.bytes(of: ecdsa.signatureS.buffer, size: ecdsa.signatureS.size))
            }
        }
    }

    /// ECDH inside the TPM (TPM2_ECDH_ZGen) between the key and `peer`, a P-256 public key in X9.63 form: the
    /// shared point's X coordinate, 32 bytes (what Apple's `.ecdhKeyExchangeStandard` gives).
    public func sharedSecret(with key: TPMP256Key, peer: [UInt8], auth: [UInt8] = []) throws(TPMError) -> [UInt8] {
        guard peer.count == 65, peer[0] == 0x04 else {
            throw TPMError(
                .invalidArgument,
                "the peer's public key is \(peer.count) bytes; a P-256 key in X9.63 form is 65, starting with 0x04")
        }
        return try withSession { (session) throws(TPMError) -> [UInt8] in
            try session.withLoaded(
                key.blob, kind: .p256Key, auth: auth, operation: "key agreement",
                encrypting: TPMA_SESSION(TPMA_SESSION_ENCRYPT)
            ) { (handle, encrypted) throws(TPMError) -> [UInt8] in
                var point = TPM2B_ECC_POINT()
                point.point.x.size = try TPMBuffers.fill(&point.point.x.buffer, with: Array(peer[1..<33]), what: "X")
                point.point.y.size = try TPMBuffers.fill(&point.point.y.buffer, with: Array(peer[33..<65]), what: "Y")
                var shared: UnsafeMutablePointer<TPM2B_ECC_POINT>?
                try TPMError.check(
                    ck_Esys_ECDH_ZGen(
                        session.esys, handle, encrypted, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                        &point, &shared),
                    "key agreement with the TPM's P-256 key")
                defer { TPMBuffers.zeroAndFree(shared) }
                guard let shared, shared.pointee.point.x.size <= 32 else {
                    throw TPMError(.failed, "key agreement: the TPM returned no point")
                }
                return TPMP256Key.padded(
                    TPMBuffers.bytes(of: shared.pointee.point.x.buffer, size: shared.pointee.point.x.size))
            }
        }
    }
}

/// An ECDSA signature's DER form: SEQUENCE { INTEGER r, INTEGER s }.
enum DERSignature {
    static func encode(r: [UInt8], s: [UInt8]) -> [UInt8] {
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    /// A positive INTEGER: no leading zero bytes, then one if the high bit is set. P-256's values fit short lengths.
    private static func integer(_ value: [UInt8]) -> [UInt8] {
        var bytes = Array(value.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02, UInt8(bytes.count)] + bytes
    }
}
