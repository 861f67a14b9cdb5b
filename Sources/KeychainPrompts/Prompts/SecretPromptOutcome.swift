import KeychainCore

/// How a prompt ended.
package enum SecretPromptOutcome: Sendable {
    /// The user entered this secret (never empty), in guarded memory; it is zeroed when released.
    case entered(SecureBytes)
    /// The user canceled: Control-C, Control-D or an empty line at the terminal, Cancel in pinentry
    /// (`errSecUserCanceled`).
    case canceled
    /// There was no way to ask, or asking failed; why, for the user (`errSecInteractionNotAllowed`).
    case unavailable(String)
}
