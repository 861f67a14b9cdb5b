import Foundation

/// What a request brings to open items with an ``AccessConstraint``: the factors the user already presented, and
/// whether the engine may ask for more (DESIGN §11).
///
/// The engine never prompts: it answers ``EngineError/Code/authNeeded`` naming the factors it lacks
/// (``EngineError/neededFactors``), and the caller asks the user and sends the request again with them, as
/// Apple's `SecItemAuthDo` loop does with `errSecAuthNeeded`. The passcode is checked afresh on every request
/// (Argon2id with the keybag's parameters): nothing the engine derives from it outlives the request.
public struct ItemAuthentication: Sendable, Equatable, Codable {
    /// What happens when an item needs a factor the request lacks.
    public enum Interaction: String, Sendable, Equatable, Codable {
        /// The engine answers ``EngineError/Code/authNeeded``, so the caller can ask the user.
        case allowed
        /// The request fails with ``EngineError/Code/interactionNotAllowed`` (`kSecUseAuthenticationUIFail`,
        /// `LAContext.interactionNotAllowed`).
        case notAllowed
        /// Such items are left out of the results (`kSecUseAuthenticationUISkip`).
        case skipItems
    }

    /// The keychain passcode, when the user typed it (or a context still holds it within its reuse window), in
    /// guarded memory.
    public var passcode: Passcode?
    /// The application password of the items being read or added, in guarded memory.
    public var applicationPassword: Passcode?
    /// What the engine does about a missing factor.
    public var interaction: Interaction
    /// When set, the lock epoch (``KeybagStatus/lockEpoch``) in which the caller got ``passcode``: a keychain locked
    /// since then refuses it with ``EngineError/Code/authNeeded``, because a lock ends every reuse.
    public var passcodeEpoch: UInt64?

    /// Creates the authentication of a request.
    public init(
        passcode: Passcode? = nil, applicationPassword: Passcode? = nil, interaction: Interaction = .allowed,
        passcodeEpoch: UInt64? = nil
    ) {
        self.passcode = passcode
        self.applicationPassword = applicationPassword
        self.interaction = interaction
        self.passcodeEpoch = passcodeEpoch
    }

    /// Whether the request holds a factor.
    package func has(_ factor: AccessFactor) -> Bool {
        switch factor {
        case .passcode: passcode != nil
        case .applicationPassword: applicationPassword != nil
        case .biometry, .companion: false
        }
    }
}
