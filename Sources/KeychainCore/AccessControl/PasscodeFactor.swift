import Foundation

/// The key pair an item's passcode constraint is sealed to (DESIGN §11): items are sealed to its public key, so
/// adding one needs no prompt, and its private key is wrapped by a key derived afresh from the typed passcode
/// (Argon2id with the keybag's parameters) and the device key.
///
/// Unlike the class keys, the unlock never opens it: holding an unlocked keybag does not open a constrained item.
/// Changing the passcode rewraps the private key; removing the passcode deletes the pair and the items that only
/// the passcode opens (as iOS deletes `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` items).
struct PasscodeFactor {
    /// The private key, sealed by ``wrappingKey(deviceKey:passcodeKey:)``.
    var wrappedPrivateKey: Data
    /// The public key items are sealed to.
    var publicKey: Data

    /// A new pair, its private key wrapped for `passcodeKey`.
    static func generate(
        keybag uuid: Data, deviceKey: SecretKey, passcodeKey: SecretKey
    ) throws(EngineError) -> PasscodeFactor {
        defer { Sodium.wipeStack() }  // the wrapping key lives only in guarded memory, never in a dead frame
        let pair = try KeyAgreementKeyPair.generate()
        return PasscodeFactor(
            wrappedPrivateKey: try AEAD.seal(
                key: pair.privateKey, under: try wrappingKey(deviceKey: deviceKey, passcodeKey: passcodeKey),
                associatedData: associatedData(keybag: uuid, publicKey: pair.publicKey)),
            publicKey: pair.publicKey)
    }

    /// Opens the pair with a passcode key; a wrong one is ``EngineError/Code/decode``.
    func open(keybag uuid: Data, deviceKey: SecretKey, passcodeKey: SecretKey) throws(EngineError)
        -> KeyAgreementKeyPair
    {
        defer { Sodium.wipeStack() }
        let privateKey = try AEAD.open(
            key: wrappedPrivateKey, under: try Self.wrappingKey(deviceKey: deviceKey, passcodeKey: passcodeKey),
            associatedData: Self.associatedData(keybag: uuid, publicKey: publicKey))
        let pair = try KeyAgreementKeyPair(privateKey: privateKey)
        guard KeyedHash.equal(pair.publicKey, publicKey) else {
            throw EngineError(.decode, "the keybag's passcode factor does not match its public key: it is damaged")
        }
        return pair
    }

    /// The same pair, its private key wrapped for another passcode key.
    func rewrapped(
        keybag uuid: Data, deviceKey: SecretKey, from current: SecretKey, to new: SecretKey
    ) throws(EngineError) -> PasscodeFactor {
        let pair = try open(keybag: uuid, deviceKey: deviceKey, passcodeKey: current)
        var factor = self
        factor.wrappedPrivateKey = try AEAD.seal(
            key: pair.privateKey, under: try Self.wrappingKey(deviceKey: deviceKey, passcodeKey: new),
            associatedData: Self.associatedData(keybag: uuid, publicKey: publicKey))
        return factor
    }

    /// The key that wraps the private key: keyed BLAKE2b of the device key over the passcode key, under a label of
    /// its own, so it is never the KEK.
    private static func wrappingKey(deviceKey: SecretKey, passcodeKey: SecretKey) throws(EngineError) -> SecretKey {
        try KeyedHash.deriveKey(from: deviceKey, context: "swift-keychain passcode factor v1", secretInput: passcodeKey)
    }

    /// Binds the wrapped private key to its keybag and to its public key, so a public key put in its place (to
    /// have new items sealed to another key) is found at the next unlock.
    private static func associatedData(keybag uuid: Data, publicKey: Data) -> [UInt8] {
        Array("swift-keychain passcode factor v1".utf8) + Array(uuid) + Array(publicKey)
    }
}

extension Keybag {
    /// The public key passcode-constrained items are sealed to, or the error when no passcode is set: as iOS
    /// refuses a `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` item without one, and `LAContext` answers
    /// `passcodeNotSet`.
    func passcodeFactorPublicKey() throws(EngineError) -> Data {
        if isPasscodeFactorAltered {
            throw EngineError(
                .decode,
                "the keybag's passcode factor was altered (its public key is not its private key's): no item is "
                    + "sealed to it; change the passcode to make a new one")
        }
        guard hasPasscode, let factor = record.passcodeFactor else {
            throw EngineError(
                .authFailed,
                "an item whose access control needs the passcode (userPresence, devicePasscode) needs a keychain "
                    + "passcode, and the keychain has none (set one with security set-keychain-password)")
        }
        return factor.publicKey
    }

    /// Checks a typed passcode (failures counted, waits honoured, as an unlock) and opens the passcode factor with
    /// it. Returns `nil`, checking nothing, when the passcode was changed since it was stretched.
    func openPasscodeFactor(
        _ passcode: StretchedPasscode, in database: Database, now: Date
    ) throws(EngineError) -> KeyAgreementKeyPair? {
        try reload(from: database, now: now)
        guard passcode.matches(record.passcode) else { return nil }
        _ = try verify(passcode, in: database, now: now)
        guard let factor = record.passcodeFactor else {
            throw EngineError(.decode, "the keybag has a passcode but no passcode factor: it is damaged")
        }
        return try factor.open(keybag: record.uuid, deviceKey: deviceKey, passcodeKey: passcode.key)
    }

    /// The passcode factor for a new passcode: the current pair rewrapped when there is one (and the current
    /// passcode), else a new pair.
    func passcodeFactor(
        for newPasscode: StretchedPasscode, current: StretchedPasscode?, replacing altered: Bool = false
    ) throws(EngineError) -> PasscodeFactor {
        if !altered, let factor = record.passcodeFactor, let current {
            return try factor.rewrapped(
                keybag: record.uuid, deviceKey: deviceKey, from: current.key, to: newPasscode.key)
        }
        return try PasscodeFactor.generate(keybag: record.uuid, deviceKey: deviceKey, passcodeKey: newPasscode.key)
    }
}
