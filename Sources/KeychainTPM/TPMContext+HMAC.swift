import CSystem
import CTSS2

extension TPMContext {
    /// The most bytes ``hmac(_:auth:data:)`` takes in one call (the TPM's input buffer).
    public static let maximumHMACInputByteCount = 1024
    /// The longest authorization value a key made here takes (the digest size of its name algorithm, SHA-256).
    public static let maximumAuthByteCount = 32

    /// Makes an HMAC-SHA256 key inside the TPM, usable only with `auth`. The key never leaves the TPM; the TPM's
    /// dictionary-attack protection counts every wrong `auth` and locks the key out after too many.
    ///
    /// The TPM ignores trailing zero bytes of an authorization value, so `auth` should be a digest or random.
    public func createHMACKey(auth: [UInt8]) throws(TPMError) -> TPMBlob {
        try withSession { (session) throws(TPMError) -> TPMBlob in
            var sensitive = TPM2B_SENSITIVE_CREATE()
            defer { ck_zero(&sensitive, MemoryLayout<TPM2B_SENSITIVE_CREATE>.size) }
            sensitive.sensitive.userAuth.size = try Self.authSize(&sensitive.sensitive.userAuth.buffer, auth)
            return try session.create(
                .hmacKey, template: TPMTemplates.hmacKey(), sensitive: sensitive,
                operation: "creating an HMAC key in the TPM")
        }
    }

    /// HMAC-SHA256 of `data` computed inside the TPM with the key in `blob`, authorized by `auth`.
    ///
    /// A wrong `auth` throws ``TPMError/Code/authorizationFailed`` (and the TPM counts it); once the TPM has
    /// counted too many, every use throws ``TPMError/Code/lockout``, the right `auth` included.
    public func hmac(_ blob: TPMBlob, auth: [UInt8], data: [UInt8]) throws(TPMError) -> [UInt8] {
        try withSession { (session) throws(TPMError) -> [UInt8] in
            var buffer = TPM2B_MAX_BUFFER()
            defer { ck_zero(&buffer, MemoryLayout<TPM2B_MAX_BUFFER>.size) }
            buffer.size = try TPMBuffers.fill(&buffer.buffer, with: data, what: "the data to HMAC")
            return try session.withLoaded(
                blob, kind: .hmacKey, auth: auth, operation: "computing an HMAC",
                encrypting: TPMA_SESSION(TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT)
            ) { (handle, encrypted) throws(TPMError) -> [UInt8] in
                var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
                try TPMError.check(
                    ck_Esys_HMAC(
                        session.esys, handle, encrypted, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &buffer,
                        TPMI_ALG_HASH(TPM2_ALG_SHA256), &digest),
                    "computing an HMAC with the TPM key")
                defer { TPMBuffers.zeroAndFree(digest) }
                guard let digest else { throw TPMError(.failed, "computing an HMAC: the TPM returned no digest") }
                return TPMBuffers.bytes(of: digest.pointee.buffer, size: digest.pointee.size)
            }
        }
    }

    /// Copies an authorization value into a TPM2B_AUTH buffer, refusing one longer than a key's name digest.
    static func authSize<Buffer>(_ buffer: inout Buffer, _ auth: [UInt8]) throws(TPMError) -> UInt16 {
        guard auth.count <= maximumAuthByteCount else {
            throw TPMError(
                .invalidArgument,
                "the authorization value is \(auth.count) bytes; the TPM takes at most \(maximumAuthByteCount)")
        }
        return try TPMBuffers.fill(&buffer, with: auth, what: "the authorization value")
    }
}
