import Foundation

/// Access control in the engine (DESIGN §11): releasing a request's factors before its search, and sealing an
/// item's secret to its factors when it is added.
extension Engine {
    /// The factors a request released. Its passcode is stretched outside the engine's lock and checked under it,
    /// its failures counted as an unlock's; a passcode from before the last lock is not used.
    func factorRelease(_ authentication: ItemAuthentication?) throws(EngineError) -> FactorRelease {
        let (deviceKey, hasPasscode) = state.withLock { state in (state.keybag.deviceKey, state.keybag.hasPasscode) }
        var release = FactorRelease(
            authentication: authentication, deviceKey: deviceKey, keychainHasPasscode: hasPasscode)
        guard let authentication, let passcode = authentication.passcode else { return release }
        try withStretchedPasscode { (stored) throws(EngineError) -> Bool in
            // Without a passcode there is no passcode factor: only another factor can open an item.
            guard let stored else {
                release.keychainHasPasscode = false
                return true
            }
            if let kept = authentication.passcodeEpoch, kept != state.withLock({ $0.keybag.lockEpoch }) {
                release.passcodeRefusal = "the keychain was locked since the passcode was given"
                return true
            }
            let stretched = try StretchedPasscode(passcode, parameters: stored)
            release.passcodePair = try state.withLock { (state) throws(EngineError) -> KeyAgreementKeyPair? in
                try state.keybag.openPasscodeFactor(stretched, in: state.database, now: options.now())
            }
            return release.passcodePair != nil
        }
        return release
    }

    /// How a new item is sealed to its access control, or `nil` when it has none: refuses a constraint on a
    /// synchronizable item (Apple's rule: such items cannot leave the device) and, when it names the passcode, a
    /// keychain without one.
    func accessSealing(
        for attributes: inout ItemAttributes, itemClass: ItemClass, uuid: UUID,
        authentication: ItemAuthentication?, in state: EngineState
    ) throws(EngineError) -> AccessSealing? {
        guard let value = attributes[.accessControl] else { return nil }
        let constraint = try AccessConstraint(attributeValue: value)
        guard constraint.isConstrained else {
            attributes[.accessControl] = nil
            return nil
        }
        if attributes.bool(.synchronizable) == true {
            throw .param(
                "an item with access control (accc: \(constraint)) cannot be synchronizable (sync): its factors "
                    + "never leave this device")
        }
        attributes[.accessControl] = constraint.attributeValue
        let keybag = state.keybag
        let lock = try AccessLock.make(
            constraint, binding: ItemSealer.accessBinding(uuid: uuid, itemClass: itemClass),
            passcodePublicKey: { () throws(EngineError) -> Data in try keybag.passcodeFactorPublicKey() },
            applicationPassword: authentication?.applicationPassword,
            cost: keybag.record.passcode?.cost ?? options.passcodeCost, deviceKey: keybag.deviceKey)
        return AccessSealing(constraint: constraint, lock: lock)
    }

    /// How a rewritten match is sealed again: an item with access control keeps it (and its item key); it keeps
    /// its envelope when the data stays, and needs its unlock secret (released by the request's factors) when the
    /// data changes. Changing the constraint itself, or making such an item synchronizable, is refused.
    static func accessSealing(
        of match: ItemMatch, current: ItemAttributes, attributes: ItemAttributes, _ changes: ItemChanges
    ) throws(EngineError) -> AccessSealing? {
        guard let value = current[.accessControl] else {
            if attributes[.accessControl] != nil {
                throw .param("an update cannot add access control (accc) to an item: delete it and add it again")
            }
            return nil
        }
        guard attributes[.accessControl] == value else {
            throw .param("an update cannot change an item's access control (accc): delete the item and add it again")
        }
        guard attributes.bool(.synchronizable) != true else {
            throw .param("an item with access control (accc) cannot be synchronizable (sync)")
        }
        guard var sealing = match.sealing else {
            throw .internalError("an update's match with access control was read without its sealing")
        }
        if changes.data != nil {
            guard let lock = sealing.lock else {
                let constraint = sealing.constraint
                throw EngineError.authNeeded(
                    constraint.satisfiableFactors, "writing the data of an item with access control needs its factors")
            }
            sealing.keptEnvelope = nil
            sealing.lock = lock
        }
        return sealing
    }
}
