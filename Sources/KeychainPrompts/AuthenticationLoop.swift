import Foundation
import KeychainCore

/// Apple's `SecItemAuthDo` loop (SecItem.m) on Linux's terms (DESIGN §11): a request is sent; when the keychain
/// answers ``EngineError/Code/authNeeded`` the user is asked for the factors it names, and the request is sent
/// again with them, at most ``maximumRounds`` times. Works the same embedded and through `keychaind`: the engine
/// never prompts, the caller's process does, in its own terminal.
public enum AuthenticationLoop {
    /// The most rounds a call takes (Apple's loop gives up after as many).
    public static let maximumRounds = 20

    /// What the call shows and allows at the prompt.
    public struct Options: Sendable {
        /// The context whose remembered factors the call uses and whose reuse it extends; `nil` for a context of
        /// this call alone.
        public var context: AuthenticationContext?
        /// What happens when a factor is missing (`kSecUseAuthenticationUI`).
        public var interaction: ItemAuthentication.Interaction
        /// The operation prompt (`kSecUseOperationPrompt`).
        public var operationPrompt: String?

        /// Creates the options of a call.
        public init(
            context: AuthenticationContext? = nil, interaction: ItemAuthentication.Interaction = .allowed,
            operationPrompt: String? = nil
        ) {
            self.context = context
            self.interaction = interaction
            self.operationPrompt = operationPrompt
        }
    }

    /// Runs `request` with the authentication it needs, asking the user between rounds. A wrong factor is
    /// `errSecAuthFailed`, a cancel `errSecUserCanceled`, no way to ask `errSecInteractionNotAllowed`.
    public static func perform<Result>(
        _ options: Options, backend: any KeychainBackend,
        _ request: (ItemAuthentication) throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        let context = options.context ?? AuthenticationContext()
        var authentication = context.authentication(interaction: options.interaction)
        var typedPasscode: Passcode?
        for round in 1...maximumRounds {
            do {
                let result = try request(authentication)
                if let typedPasscode, let epoch = authentication.passcodeEpoch {
                    context.remember(passcode: typedPasscode, epoch: epoch)
                }
                return result
            } catch  where error.code == .authNeeded {
                let needed = error.neededFactors ?? []
                guard authentication.interaction == .allowed, !needed.isEmpty else { throw error }
                if authentication.passcodeEpoch != nil, needed.contains(.passcode) {
                    // The keychain refused the remembered passcode (a lock since): it is asked for again.
                    context.forgetPasscode()
                    authentication.passcode = nil
                    authentication.passcodeEpoch = nil
                }
                // One factor per round, the passcode first: when any factor opens the item, the first one the
                // user gives does; when every one is needed, the next round names what is still missing.
                guard let factor = needed.first(where: { !authentication.has($0) }) else { throw error }
                switch factor {
                case .passcode:
                    let typed = try context.ask(.passcode, reason: options.operationPrompt, attempt: round)
                    typedPasscode = typed
                    authentication.passcode = typed
                    // The epoch is read before the request that carries the passcode: a lock between the two
                    // makes the keychain refuse it (and ask again), rather than the context keep it past the lock.
                    authentication.passcodeEpoch = try backend.keybagStatus().lockEpoch
                case .applicationPassword:
                    let typed = try context.ask(.applicationPassword, reason: options.operationPrompt, attempt: round)
                    authentication.applicationPassword = typed
                case .biometry, .companion:
                    throw error
                }
            }
        }
        throw EngineError(
            .authFailed, "the keychain still asked for authentication after \(maximumRounds) rounds; giving up")
    }
}
