import KeychainTPM

/// A passcode stretched with Argon2id for one salt and cost: the slow step, done outside the engine's lock so
/// that other threads keep reading while someone unlocks.
///
/// Where the keychain's passcode is entangled with its TPM (``KeybagRecord/Passcode/tpmKey``), the key is the
/// Argon2id output combined with an HMAC computed inside the TPM by a key that opens only with an authorization value
/// derived from that output (``PasscodeTPM``): every guess then needs this TPM, and the TPM's dictionary-attack
/// protection counts the wrong ones.
struct StretchedPasscode {
    /// The salt and cost it was stretched with (and the TPM key it was entangled with, if any).
    let parameters: KeybagRecord.Passcode
    /// The passcode key, in locked memory: what enters the KEK.
    let key: SecretKey
    /// The Argon2id output alone, kept to entangle a new passcode with the TPM (``entangled(with:keybag:)``).
    private let stretched: SecretKey

    /// Stretches `passcode` with the given parameters, and, when they name a TPM key, has the TPM compute its part.
    /// A passcode the TPM refuses gives a key that opens nothing (so the keybag counts it as wrong, as the TPM did);
    /// a TPM in lockout, or unreachable, is an error naming it.
    init(_ passcode: Passcode, parameters: KeybagRecord.Passcode) throws(EngineError) {
        // The key must live only in guarded memory: `deriveKey` wipes what Argon2id leaves behind, and this what the
        // TPM's part (its authorization value, its HMAC, their combination) leaves below this frame.
        defer { Sodium.wipeStack() }
        self.parameters = parameters
        self.stretched = try PasscodeHash.deriveKey(passcode: passcode, salt: parameters.salt, cost: parameters.cost)
        if let blob = parameters.tpmKey {
            key = try PasscodeTPM.key(stretched: stretched, blob: blob, parameters: parameters)
        } else {
            key = stretched
        }
    }

    /// Stretches a new passcode with a fresh salt.
    init(newPasscode: Passcode, cost: PasscodeCost) throws(EngineError) {
        guard !newPasscode.isEmpty else { throw .param("the new passcode is empty") }
        let parameters = KeybagRecord.Passcode(
            salt: try RandomBytes.make(count: PasscodeHash.saltByteCount), cost: try cost.validated())
        try self.init(newPasscode, parameters: parameters)
    }

    private init(parameters: KeybagRecord.Passcode, key: SecretKey, stretched: SecretKey) {
        self.parameters = parameters
        self.key = key
        self.stretched = stretched
    }

    /// This new passcode entangled with `tpm`: a new HMAC key is made in the TPM under an authorization value
    /// derived from the passcode, and the key becomes the Argon2id output combined with its HMAC.
    func entangled(with tpm: TPMContext) throws(EngineError) -> StretchedPasscode {
        defer { Sodium.wipeStack() }  // as in `init`: the TPM's part leaves the key's makings below this frame
        var parameters = parameters
        parameters.tpm = tpm
        parameters.tpmKey = try PasscodeTPM.makeKey(stretched: stretched, tpm: tpm)
        let key = try PasscodeTPM.key(stretched: stretched, blob: parameters.tpmKey ?? [], parameters: parameters)
        return StretchedPasscode(parameters: parameters, key: key, stretched: stretched)
    }

    /// Whether it was stretched for the stored passcode parameters.
    func matches(_ stored: KeybagRecord.Passcode?) -> Bool {
        stored.map { $0.salt == parameters.salt && $0.cost == parameters.cost && $0.tpmKey == parameters.tpmKey }
            ?? false
    }
}
