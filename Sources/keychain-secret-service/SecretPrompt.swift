import Foundation
import KeychainCore
import KeychainPrompts

/// The prompts (`org.freedesktop.Secret.Prompt` at `/org/freedesktop/secrets/prompt/N`): `Unlock` on a locked
/// keychain returns one; its `Prompt(window-id)` asks for the keychain's passcode through the keychain's prompters
/// (the terminal, else pinentry) and emits `Completed(dismissed, result)`; `Dismiss` ends it unanswered.
extension SecretService {
    /// What a prompt does once the user answers.
    enum PendingPrompt {
        /// Unlocks the keychain; the result is these objects.
        case unlock([String])
    }

    /// How many wrong passcodes one prompt takes before it gives up (dismissed).
    static let promptAttempts = 3

    /// A new prompt's path.
    func makePrompt(_ pending: PendingPrompt) -> String {
        let path = "\(Self.root)/prompt/\(nextPrompt)"
        nextPrompt += 1
        prompts[path] = pending
        return path
    }

    func prompt(_ path: String, _ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        guard let pending = prompts[path] else { throw .noSuchObject(path) }
        switch call.member {
        case "Prompt":
            _ = try call.readString()
            prompts[path] = nil
            switch pending {
            case .unlock(let objects):
                let unlocked = unlock()
                completed(path, dismissed: !unlocked, objects: unlocked ? objects : [])
                if unlocked { lockChanged() }
            }
        case "Dismiss":
            prompts[path] = nil
            completed(path, dismissed: true, objects: [])
        default: throw .unknownMethod(call)
        }
    }

    /// Asks for the passcode until the keychain unlocks, the user cancels, or the attempts run out. Whether it
    /// unlocked.
    private func unlock() -> Bool {
        guard isLocked else { return true }
        for attempt in 1...Self.promptAttempts {
            let request = SecretPromptRequest(
                kind: .passcode, operationPrompt: "A program asks to unlock the keychain through the Secret Service",
                callingProgram: "keychain-secret-service", attempt: attempt)
            guard case .entered(let secret) = prompter.ask(request) else { return false }
            do throws(EngineError) {
                try store.backend.unlock(passcode: Passcode(secret))
                return true
            } catch  where error.code == .authFailed {
                continue
            } catch {
                return false
            }
        }
        return false
    }

    /// `Completed(dismissed, result)`: the result is the unlocked objects (`ao`).
    private func completed(_ path: String, dismissed: Bool, objects: [String]) {
        signal(path, Self.promptInterface, "Completed") { (m) throws(BusFailure) in
            try m.append(dismissed)
            try m.container("v", "ao") { () throws(BusFailure) in try m.append(paths: objects) }
        }
    }
}
