import KeychainTPM

/// The passcode entangled with the TPM (DESIGN §15, issue 26): for a keychain whose device key the TPM seals, setting
/// the passcode makes an HMAC-SHA256 key inside the TPM whose authorization value is derived from the Argon2id output,
/// and the passcode key is the Argon2id output combined with that key's HMAC of the keybag's salt.
///
/// So a guess can be checked only by this TPM: the HMAC key's blob (stored in the keybag) loads on no other, and the
/// TPM computes the HMAC only for the right authorization value. Every wrong guess is counted by the TPM's
/// dictionary-attack protection as well as by the keybag's waits, and once the TPM is in lockout it refuses every
/// guess, the right one included, until its recovery time passes (or its lockout authorization resets it).
enum PasscodeTPM {
    /// Makes the HMAC key for a new passcode (its Argon2id output `stretched`) in `tpm`; returns its blob.
    static func makeKey(stretched: SecretKey, tpm: TPMContext) throws(EngineError) -> [UInt8] {
        let auth = try authorization(stretched)
        defer { auth.wipe() }
        do {
            return try tpm.createHMACKey(auth: auth).serialized()
        } catch {
            throw EngineError(
                .interactionNotAllowed, "cannot entangle the new passcode with the TPM at \(tpm.tcti): \(error.message)"
            )
        }
    }

    /// The passcode key: the Argon2id output `stretched` combined with the HMAC the TPM computes with the key in
    /// `blob`. A passcode the TPM refuses gives a random key, which opens nothing, so the keybag counts the failure
    /// too; a TPM in lockout or out of reach is an error naming it.
    static func key(
        stretched: SecretKey, blob: [UInt8], parameters: KeybagRecord.Passcode
    ) throws(EngineError) -> SecretKey {
        guard let tpm = parameters.tpm else {
            throw EngineError(
                .interactionNotAllowed,
                "the keychain's passcode is entangled with a TPM, and no TPM is configured here to check it")
        }
        let sealed: TPMBlob
        do {
            sealed = try TPMBlob(serialized: blob)
        } catch {
            throw EngineError(.decode, "the keychain's passcode key in the TPM is damaged: \(error.message)")
        }
        let auth = try authorization(stretched)
        defer { auth.wipe() }
        var digest: [UInt8]
        do {
            digest = try tpm.hmac(
                sealed, auth: auth, data: Array("swift-keychain passcode tpm v1".utf8) + parameters.salt)
        } catch  where error.code == .authorizationFailed {
            return try SecretKey.random()
        } catch  where error.code == .lockout {
            throw EngineError(
                .interactionNotAllowed,
                "the TPM at \(tpm.tcti) is in dictionary-attack lockout after too many wrong passcodes: it checks no "
                    + "passcode until its recovery time has passed (\(error.message))")
        } catch  where error.code == .foreignBlob {
            throw EngineError(
                .invalidKeychain,
                "the keychain's passcode is entangled with another TPM than the one at \(tpm.tcti): \(error.message)")
        } catch {
            throw EngineError(
                .interactionNotAllowed, "the TPM at \(tpm.tcti) did not check the passcode: \(error.message)")
        }
        defer { digest.wipe() }
        let share = try SecretKey(copying: digest)
        return try KeyedHash.deriveKey(from: stretched, context: "swift-keychain passcode tpm v1", secretInput: share)
    }

    /// The HMAC key's authorization value: a keyed hash of the Argon2id output (32 bytes, a digest, as the TPM wants).
    private static func authorization(_ stretched: SecretKey) throws(EngineError) -> [UInt8] {
        let derived = try KeyedHash.deriveKey(from: stretched, context: "swift-keychain passcode tpm auth v1")
        return derived.withUnsafeBytes { Array($0) }
    }

}
