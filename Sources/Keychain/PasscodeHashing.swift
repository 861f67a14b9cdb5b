import KeychainCore

/// How hard a passcode is stretched (Argon2id) when it is set: the cost an attacker pays for every guess against
/// a copied keychain, and the time every unlock takes. A keychain keeps the cost its passcode was set with.
public enum PasscodeHashing: Sendable, Hashable {
    /// 192 MiB and 3 passes: about 0.35 s per unlock on a 2-core server. The default.
    case standard
    /// The cheapest Argon2id allows. For tests only: it protects nothing.
    case minimum

    /// The engine's cost.
    var cost: PasscodeCost {
        switch self {
        case .standard: .standard
        case .minimum: .minimum
        }
    }
}
