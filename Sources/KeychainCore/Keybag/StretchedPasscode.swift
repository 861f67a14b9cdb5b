/// A passcode stretched with Argon2id for one salt and cost: the slow step, done outside the engine's lock so
/// that other threads keep reading while someone unlocks.
struct StretchedPasscode {
    /// The salt and cost it was stretched with.
    let parameters: KeybagRecord.Passcode
    /// The passcode key, in locked memory.
    let key: SecretKey

    /// Stretches `passcode` with the given parameters.
    init(_ passcode: Passcode, parameters: KeybagRecord.Passcode) throws(EngineError) {
        self.parameters = parameters
        self.key = try PasscodeHash.deriveKey(passcode: passcode, salt: parameters.salt, cost: parameters.cost)
        // Argon2id leaves a copy of its output on the stack: the key must live only in guarded memory.
        Sodium.wipeStack()
    }

    /// Stretches a new passcode with a fresh salt.
    init(newPasscode: Passcode, cost: PasscodeCost) throws(EngineError) {
        guard !newPasscode.isEmpty else { throw .param("the new passcode is empty") }
        let parameters = KeybagRecord.Passcode(
            salt: try RandomBytes.make(count: PasscodeHash.saltByteCount), cost: try cost.validated())
        try self.init(newPasscode, parameters: parameters)
    }

    /// Whether it was stretched for the stored passcode parameters.
    func matches(_ stored: KeybagRecord.Passcode?) -> Bool {
        stored.map { $0.salt == parameters.salt && $0.cost == parameters.cost } ?? false
    }
}
