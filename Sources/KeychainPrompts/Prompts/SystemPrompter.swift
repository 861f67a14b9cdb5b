import Foundation
import KeychainCore

/// The prompt the keychain uses (DESIGN §11): the controlling terminal when the process has one, else pinentry,
/// else ``SecretPromptOutcome/unavailable(_:)`` naming why neither could ask (`errSecInteractionNotAllowed`).
package struct SystemPrompter: SecretPrompter {
    private let terminal: TerminalPrompter
    private let pinentry: PinentryPrompter

    /// A prompter whose pinentry is found through `environment` (`PINENTRY_PROGRAM`, `PATH`) and gets it (`DISPLAY`
    /// and the like); `nil`: the process's environment when it asks.
    package init(environment: [String: String]? = nil) {
        terminal = TerminalPrompter()
        pinentry = PinentryPrompter(environment: environment)
    }

    /// Asks on the terminal, or through pinentry when there is no terminal to ask on.
    package func ask(_ request: SecretPromptRequest) -> SecretPromptOutcome {
        let onTerminal = terminal.ask(request)
        guard case .unavailable(let noTerminal) = onTerminal else { return onTerminal }
        switch pinentry.ask(request) {
        case .unavailable(let noPinentry): return .unavailable("\(noTerminal); \(noPinentry)")
        case let outcome: return outcome
        }
    }
}
