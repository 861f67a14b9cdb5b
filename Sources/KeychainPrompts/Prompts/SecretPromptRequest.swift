import Foundation
import KeychainCore

/// What a prompt shows: the secret asked for, why (the caller's operation prompt), who asks, and whether an
/// earlier attempt was wrong.
///
/// The texts come from the calling program (`kSecUseOperationPrompt`, `LAContext.localizedReason`): the prompters
/// show them with control characters replaced, so they cannot rewrite the terminal or forge an Assuan command.
package struct SecretPromptRequest: Sendable {
    /// The secret asked for.
    package var kind: PromptedSecretKind
    /// Why it is asked (`kSecUseOperationPrompt`, `LAContext.localizedReason`), shown to the user.
    package var operationPrompt: String?
    /// The name or path of the program asking, shown to the user.
    package var callingProgram: String
    /// The cancel button's title (`LAContext.localizedCancelTitle`, pinentry's `SETCANCEL`).
    package var cancelTitle: String?
    /// Which attempt this is, from 1; a later one tells the user the previous secret was wrong.
    package var attempt: Int

    /// A request; the calling program defaults to this process's name.
    package init(
        kind: PromptedSecretKind = .passcode, operationPrompt: String? = nil,
        callingProgram: String = ProcessInfo.processInfo.processName, cancelTitle: String? = nil, attempt: Int = 1
    ) {
        self.kind = kind
        self.operationPrompt = operationPrompt
        self.callingProgram = callingProgram
        self.cancelTitle = cancelTitle
        self.attempt = attempt
    }
}
