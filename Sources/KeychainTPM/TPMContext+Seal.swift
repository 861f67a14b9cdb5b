import CSystem
import CTSS2

extension TPMContext {
    /// The most bytes ``seal(_:)`` takes (the TPM's MAX_SYM_DATA).
    public static let maximumSealedByteCount = 128

    /// Seals `secret` to this TPM: a keyed-hash object under the storage primary key, whose private area the TPM
    /// encrypts with its own key. The blob opens with ``unseal(_:)`` on this TPM alone.
    public func seal(_ secret: [UInt8]) throws(TPMError) -> SealedBlob {
        guard secret.count <= Self.maximumSealedByteCount else {
            throw TPMError(
                .invalidArgument,
                "cannot seal \(secret.count) bytes: the TPM seals at most \(Self.maximumSealedByteCount)")
        }
        return try withSession { (session) throws(TPMError) -> TPMBlob in
            var sensitive = TPM2B_SENSITIVE_CREATE()
            defer { ck_zero(&sensitive, MemoryLayout<TPM2B_SENSITIVE_CREATE>.size) }
            sensitive.sensitive.data.size = try TPMBuffers.fill(
                &sensitive.sensitive.data.buffer, with: secret, what: "the secret to seal")
            return try session.create(
                .sealedData, template: TPMTemplates.sealedData(), sensitive: sensitive,
                operation: "sealing \(secret.count) bytes to the TPM")
        }
    }

    /// The secret ``seal(_:)`` sealed in `blob`; ``TPMError/Code/foreignBlob`` when another TPM sealed it.
    public func unseal(_ blob: SealedBlob) throws(TPMError) -> [UInt8] {
        try withSession { (session) throws(TPMError) -> [UInt8] in
            try session.withLoaded(
                blob, kind: .sealedData, operation: "unsealing", encrypting: TPMA_SESSION(TPMA_SESSION_ENCRYPT)
            ) { (handle, encrypted) throws(TPMError) in
                var data: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
                try TPMError.check(
                    ck_Esys_Unseal(
                        session.esys, handle, encrypted, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &data),
                    "unsealing")
                defer { TPMBuffers.zeroAndFree(data) }
                guard let data else { throw TPMError(.failed, "unsealing: the TPM returned no data") }
                return TPMBuffers.bytes(of: data.pointee.buffer, size: data.pointee.size)
            }
        }
    }
}
