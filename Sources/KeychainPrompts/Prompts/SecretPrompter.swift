import KeychainCore

/// Something that asks the user for a secret: the controlling terminal, pinentry, or both in turn
/// (``SystemPrompter``). A call blocks until the user answers, cancels, or the prompter gives up.
package protocol SecretPrompter: Sendable {
    /// Asks for the secret `request` describes.
    func ask(_ request: SecretPromptRequest) -> SecretPromptOutcome
}
