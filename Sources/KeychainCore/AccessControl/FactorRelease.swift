import Foundation

/// The factors one request released, and the decision each constrained item gets: open it, leave it out, or
/// refuse (DESIGN §11).
///
/// The passcode is checked (and its factor opened) once per request, before the item search, with failures counted
/// as for an unlock; nothing released outlives the request.
struct FactorRelease {
    /// The request's authentication (`nil`: none, so constrained items need the user and interaction is allowed).
    var authentication: ItemAuthentication?
    /// The passcode factor's key pair, opened with the request's passcode.
    var passcodePair: KeyAgreementKeyPair?
    /// Why the request's passcode was not used, when it was set but not usable (a lock since it was typed).
    var passcodeRefusal: String?
    /// The device key, in every factor's key.
    var deviceKey: SecretKey
    /// Whether the keychain has a passcode: without one the passcode factor cannot be presented at all.
    var keychainHasPasscode = true

    /// The factors present.
    private func has(_ factor: AccessFactor) -> Bool {
        switch factor {
        case .passcode: passcodePair != nil
        case .applicationPassword: authentication?.applicationPassword != nil
        case .biometry, .companion: false
        }
    }

    /// The unlock secret of a constrained item, or `nil` when the request leaves such items out. Throws
    /// ``EngineError/Code/authNeeded`` naming the missing factors when the request may ask for them,
    /// ``EngineError/Code/interactionNotAllowed`` when it may not, and ``EngineError/Code/authFailed`` when the
    /// constraint needs what this machine cannot present (biometry, a companion device) or a factor is wrong.
    func unlockSecret(
        of envelope: AccessEnvelope, _ constraint: AccessConstraint, binding: [UInt8], item: PersistentReference
    ) throws(EngineError) -> SecretKey? {
        guard constraint.isSatisfiable else {
            let missing = constraint.factors.filter { !$0.isAvailable }.map(\.rawValue).joined(separator: ", ")
            throw EngineError(
                .authFailed,
                "the item \(item) needs \(missing) (access control: \(constraint)), which this machine does not have")
        }
        let available = constraint.satisfiableFactors.filter { $0 != .passcode || keychainHasPasscode }
        guard !available.isEmpty, constraint.needsAnyFactor || available.count == constraint.satisfiableFactors.count
        else {
            throw EngineError(
                .authFailed,
                "the item \(item) needs the keychain passcode (access control: \(constraint)), and the keychain has none"
            )
        }
        let missing =
            constraint.needsAnyFactor
            ? (available.contains(where: has) ? [] : available) : available.filter { !has($0) }
        if !missing.isEmpty {
            let names = missing.map(\.rawValue).joined(separator: constraint.needsAnyFactor ? " or " : " and ")
            switch authentication?.interaction ?? .allowed {
            case .skipItems: return nil
            case .notAllowed:
                throw EngineError(
                    .interactionNotAllowed,
                    "the item \(item) needs the user's authentication (\(names)), and the request may not ask for it")
            case .allowed:
                let reason = passcodeRefusal.map { " (\($0))" } ?? ""
                throw EngineError.authNeeded(missing, "the item \(item) needs authentication: \(names)\(reason)")
            }
        }
        return try AccessLock.open(
            envelope, constraint, binding: binding, passcodePair: passcodePair,
            applicationPassword: authentication?.applicationPassword, deviceKey: deviceKey)
    }
}
