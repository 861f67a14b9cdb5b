import KeychainCore

/// Which secret a prompt asks for (DESIGN §11).
package enum PromptedSecretKind: Sendable {
    /// The keychain's passcode: it satisfies `.userPresence` and `.devicePasscode` (there is no biometric sensor).
    case passcode
    /// An item's application password (`.applicationPassword`), when no `LAContext` credential supplied it.
    case applicationPassword
}
