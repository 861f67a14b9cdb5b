import CTSS2

/// The public templates of the objects the keychain makes in the TPM. Every object is fixedTPM and fixedParent:
/// the TPM never lets it be duplicated to another TPM or moved under another parent.
enum TPMTemplates {
    private static let fixed = TPMA_OBJECT(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)

    /// The storage primary key: ECC P-256 with AES-128-CFB for its children, restricted to decryption (a parent
    /// only), no unique field, so the TPM derives the same key from the same seed every time. Exempt from the
    /// dictionary-attack protection (its authorization is empty, and a failure on it is not a guess).
    static func storagePrimary() -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_ECC)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes =
            fixed
            | TPMA_OBJECT(
                TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA
                    | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPMI_ALG_SYM_OBJECT(TPM2_ALG_AES)
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPMI_ALG_SYM_MODE(TPM2_ALG_CFB)
        template.publicArea.parameters.eccDetail.scheme.scheme = TPMI_ALG_ECC_SCHEME(TPM2_ALG_NULL)
        template.publicArea.parameters.eccDetail.curveID = TPMI_ECC_CURVE(TPM2_ECC_NIST_P256)
        template.publicArea.parameters.eccDetail.kdf.scheme = TPMI_ALG_KDF(TPM2_ALG_NULL)
        return template
    }

    /// A sealed data object: keyed-hash with no scheme, its data supplied by the caller, opened with an empty
    /// authorization (what protects it is that only this TPM can load it).
    static func sealedData() -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_KEYEDHASH)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes =
            fixed | TPMA_OBJECT(TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA)
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPMI_ALG_KEYEDHASH_SCHEME(TPM2_ALG_NULL)
        return template
    }

    /// An HMAC-SHA256 key the TPM generates; its authorization value is subject to the dictionary-attack
    /// protection (no noDA), so the TPM counts wrong values and locks out.
    static func hmacKey() -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_KEYEDHASH)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes =
            fixed
            | TPMA_OBJECT(TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT)
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPMI_ALG_KEYEDHASH_SCHEME(TPM2_ALG_HMAC)
        template.publicArea.parameters.keyedHashDetail.scheme.details.hmac.hashAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        return template
    }

    /// A P-256 key the TPM generates, for both signing and key agreement (an unrestricted key may be both when
    /// its scheme is left to each command); guarded by the dictionary-attack protection.
    static func p256Key() -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_ECC)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes =
            fixed
            | TPMA_OBJECT(
                TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT
                    | TPMA_OBJECT_DECRYPT)
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPMI_ALG_SYM_OBJECT(TPM2_ALG_NULL)
        template.publicArea.parameters.eccDetail.scheme.scheme = TPMI_ALG_ECC_SCHEME(TPM2_ALG_NULL)
        template.publicArea.parameters.eccDetail.curveID = TPMI_ECC_CURVE(TPM2_ECC_NIST_P256)
        template.publicArea.parameters.eccDetail.kdf.scheme = TPMI_ALG_KDF(TPM2_ALG_NULL)
        return template
    }
}
