import CTSS2

extension TPMContext {
    /// Sets the TPM's dictionary-attack parameters through the lockout hierarchy (whose authorization must be
    /// empty): after `maximumTries` wrong authorization values the TPM is in lockout; one failure is forgotten
    /// every `recoveryTime` seconds (0: none, until reset); `lockoutRecovery` seconds must pass after a wrong
    /// lockout authorization.
    public func setDictionaryAttackParameters(
        maximumTries: UInt32, recoveryTime: UInt32, lockoutRecovery: UInt32
    ) throws(TPMError) {
        try withSession { (session) throws(TPMError) in
            try TPMError.check(
                ck_Esys_DictionaryAttackParameters(
                    session.esys, ESYS_TR(ESYS_TR_RH_LOCKOUT), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE),
                    ESYS_TR(ESYS_TR_NONE), maximumTries, recoveryTime, lockoutRecovery),
                "setting the TPM's dictionary-attack parameters")
        }
    }

    /// Clears the TPM's count of wrong authorization values and ends a lockout (the lockout hierarchy's
    /// authorization must be empty).
    public func resetDictionaryAttackLockout() throws(TPMError) {
        try withSession { (session) throws(TPMError) in
            try TPMError.check(
                ck_Esys_DictionaryAttackLockReset(
                    session.esys, ESYS_TR(ESYS_TR_RH_LOCKOUT), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE),
                    ESYS_TR(ESYS_TR_NONE)),
                "resetting the TPM's dictionary-attack lockout")
        }
    }
}
