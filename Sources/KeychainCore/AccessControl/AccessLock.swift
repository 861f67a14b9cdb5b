import Foundation

/// How an item's unlock secret is made for its factors and opened again with them (DESIGN §11).
///
/// - With ``AccessConstraint/Flags/or`` one random unlock secret is sealed once per available factor.
/// - Otherwise each available factor seals a random share, and the unlock secret is derived from all shares, so
///   every factor is needed.
///
/// The passcode's entry is sealed to the keybag's passcode factor (``PasscodeFactor``), whose private key only the
/// typed passcode opens. An application password's entry is sealed under a key derived from that password
/// (Argon2id, a salt and cost the entry keeps, the keybag's cost when it is made) and the device key. Biometry and companion factors have
/// no entry: nothing on this machine can present them.
enum AccessLock {
    /// What a new constrained secret needs: its unlock secret (locked memory) and the entries that seal it.
    struct Sealing {
        var constraint: AccessConstraint
        var unlockSecret: SecretKey
        var entries: [AccessEnvelope.Entry]
    }

    /// Makes the unlock secret and entries of a constraint. `passcodePublicKey` is asked for only when the
    /// constraint names the passcode; an application password must be given when it names one.
    static func make(
        _ constraint: AccessConstraint, binding: [UInt8], passcodePublicKey: () throws(EngineError) -> Data,
        applicationPassword: Passcode?, cost: PasscodeCost, deviceKey: SecretKey
    ) throws(EngineError) -> Sealing {
        let factors = constraint.satisfiableFactors
        if factors.contains(.applicationPassword), applicationPassword?.isEmpty ?? true {
            throw EngineError.authNeeded(
                [.applicationPassword],
                "the item's access control needs an application password, and the request brings none")
        }
        let shared = try SecretKey.random()
        var shares: [SecretKey] = []
        var entries: [AccessEnvelope.Entry] = []
        for factor in factors {
            let share = constraint.needsAnyFactor ? shared : try SecretKey.random()
            shares.append(share)
            let associatedData = entryAssociatedData(factor, binding: binding)
            switch factor {
            case .passcode:
                entries.append(
                    .init(
                        factor: .passcode,
                        payload: try PublicKeySeal.seal(
                            key: share, to: try passcodePublicKey(), associatedData: associatedData)))
            case .applicationPassword:
                // The entry keeps its own salt and cost: the keybag's or the engine's may differ when it is opened.
                let salt = try RandomBytes.make(count: PasscodeHash.saltByteCount)
                let key = try applicationPasswordKey(
                    applicationPassword ?? Passcode(), salt: salt, cost: cost, deviceKey: deviceKey)
                var header: [UInt8] = []
                header.appendLittleEndian(cost.passes)
                header.appendLittleEndian(UInt64(cost.memoryBytes))
                entries.append(
                    .init(
                        factor: .applicationPassword,
                        payload: Data(header + salt)
                            + (try AEAD.seal(key: share, under: key, associatedData: associatedData))))
            case .biometry, .companion:
                continue
            }
        }
        // A constraint nothing here can satisfy gets an unlock secret no entry holds: the item never opens.
        let unlockSecret =
            !constraint.isSatisfiable
            ? try SecretKey.random() : constraint.needsAnyFactor ? shared : try combine(shares, constraint)
        return Sealing(constraint: constraint, unlockSecret: unlockSecret, entries: entries)
    }

    /// Opens the unlock secret with the factors a request released: the passcode factor's key pair (opened with
    /// the typed passcode) and the application password. `nil` factors are missing; the caller decides first that
    /// enough are present (``FactorRelease``). A wrong application password is ``EngineError/Code/authFailed``.
    static func open(
        _ envelope: AccessEnvelope, _ constraint: AccessConstraint, binding: [UInt8],
        passcodePair: KeyAgreementKeyPair?, applicationPassword: Passcode?, deviceKey: SecretKey
    ) throws(EngineError) -> SecretKey {
        var shares: [SecretKey] = []
        for factor in constraint.satisfiableFactors {
            guard let entry = envelope.entries.first(where: { $0.factor == factor }) else {
                throw .decode("an access-controlled secret has no entry for its \(factor.rawValue) factor")
            }
            let associatedData = entryAssociatedData(factor, binding: binding)
            let share: SecretKey
            switch factor {
            case .passcode:
                guard let passcodePair else {
                    if constraint.needsAnyFactor { continue }
                    throw EngineError.authNeeded([.passcode], "the item needs the keychain passcode")
                }
                do throws(EngineError) {
                    share = try PublicKeySeal.open(entry.payload, with: passcodePair, associatedData: associatedData)
                } catch {
                    // Sealed to a passcode factor since removed with its passcode: another factor may open it.
                    if constraint.needsAnyFactor { continue }
                    throw .decode("the item's passcode entry does not open: it was altered or moved")
                }
            case .applicationPassword:
                guard let applicationPassword else {
                    if constraint.needsAnyFactor { continue }
                    throw EngineError.authNeeded([.applicationPassword], "the item needs its application password")
                }
                let bytes = Array(entry.payload)
                let headerCount = 16 + PasscodeHash.saltByteCount
                guard bytes.count > headerCount else {
                    throw .decode("the item's application password entry is truncated")
                }
                func word(at offset: Int) -> UInt64 {
                    bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
                }
                let stored: PasscodeCost
                do throws(EngineError) {
                    stored = try PasscodeCost(
                        passes: word(at: 0), memoryBytes: Int(truncatingIfNeeded: word(at: 8))
                    ).validated()
                } catch {
                    throw .decode("the item's application password entry has a damaged cost: \(error.message)")
                }
                let key = try applicationPasswordKey(
                    applicationPassword, salt: Array(bytes[16..<headerCount]), cost: stored, deviceKey: deviceKey)
                do throws(EngineError) {
                    share = try AEAD.open(
                        key: Data(bytes[headerCount...]), under: key, associatedData: associatedData)
                } catch {
                    throw EngineError(.authFailed, "wrong application password for the item")
                }
            case .biometry, .companion:
                continue
            }
            if constraint.needsAnyFactor { return share }
            shares.append(share)
        }
        guard !constraint.needsAnyFactor else {
            throw EngineError.authNeeded(constraint.satisfiableFactors, "the item needs one of its factors")
        }
        return try combine(shares, constraint)
    }

    /// The key the secret is sealed under: keyed BLAKE2b of the item key over the unlock secret.
    static func secretKey(itemKey: SecretKey, unlockSecret: SecretKey) throws(EngineError) -> SecretKey {
        try KeyedHash.deriveKey(from: itemKey, context: "swift-keychain access secret v1", secretInput: unlockSecret)
    }

    /// One share is the unlock secret; several are chained through keyed BLAKE2b.
    private static func combine(_ shares: [SecretKey], _ constraint: AccessConstraint) throws(EngineError) -> SecretKey
    {
        guard var combined = shares.first else {
            throw .internalError("an access constraint with no available factor has no unlock secret")
        }
        for share in shares.dropFirst() {
            combined = try KeyedHash.deriveKey(
                from: combined, context: "swift-keychain access and v1", secretInput: share)
        }
        return combined
    }

    private static func applicationPasswordKey(
        _ password: Passcode, salt: [UInt8], cost: PasscodeCost, deviceKey: SecretKey
    ) throws(EngineError) -> SecretKey {
        let stretched = try PasscodeHash.deriveKey(passcode: password, salt: salt, cost: cost)
        defer { Sodium.wipeStack() }
        return try KeyedHash.deriveKey(
            from: deviceKey, context: "swift-keychain application password v1", secretInput: stretched)
    }

    private static func entryAssociatedData(_ factor: AccessFactor, binding: [UInt8]) -> [UInt8] {
        Array("swift-keychain access entry v1 \(factor.rawValue)".utf8) + binding
    }
}
