import Foundation
import KeychainCore
import KeychainPrompts
import Synchronization

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
        promptOwners[path] = store.identities.currentSender()
        return path
    }

    func prompt(_ path: String, _ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        // Another connection's prompt is not there for this one: running it would unlock on its owner's behalf,
        // dismissing it would end its owner's wait.
        guard let pending = prompts[path], promptOwners[path] == store.identities.currentSender() else {
            throw .noSuchObject(path)
        }
        switch call.member {
        case "Prompt":
            _ = try call.readString()
            prompts[path] = nil
            promptOwners[path] = nil
            switch pending {
            case .unlock(let objects):
                // The keychain of the caller who prompts, resolved here (the bus says who calls only while the
                // call is being answered); the asking happens on a thread of its own, so the service goes on
                // answering everyone else, and `Completed` follows this call's reply, as the spec orders them.
                guard isLocked else {
                    finishedPrompts.add(path, unlocked: true, objects)
                    return
                }
                let backend: any KeychainBackend
                do throws(EngineError) {
                    backend = try store.backend
                } catch {
                    finishedPrompts.add(path, unlocked: false, [])
                    return
                }
                let prompter = self.prompter
                let finished = finishedPrompts
                Thread.detachNewThread {
                    let unlocked = Self.unlock(backend, prompter)
                    finished.add(path, unlocked: unlocked, unlocked ? objects : [])
                }
            }
        case "Dismiss":
            prompts[path] = nil
            promptOwners[path] = nil
            completed(path, dismissed: true, objects: [])
        default: throw .unknownMethod(call)
        }
    }

    /// Completes the prompts whose asking has ended (called from the bus loop, which alone sends).
    func completeFinishedPrompts() {
        for (path, unlocked, objects) in finishedPrompts.take() {
            completed(path, dismissed: !unlocked, objects: objects)
            if unlocked { lockChanged() }
        }
    }

    /// Asks for the passcode until the keychain unlocks, the user cancels, or the attempts run out. Whether it
    /// unlocked.
    private static func unlock(_ backend: any KeychainBackend, _ prompter: any SecretPrompter) -> Bool {
        for attempt in 1...promptAttempts {
            let request = SecretPromptRequest(
                kind: .passcode, operationPrompt: "A program asks to unlock the keychain through the Secret Service",
                callingProgram: "keychain-secret-service", attempt: attempt)
            guard case .entered(let secret) = prompter.ask(request) else { return false }
            do throws(EngineError) {
                try backend.unlock(passcode: Passcode(secret))
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

/// The prompts whose asking ended on their own threads, waiting for the bus loop to complete them.
final class FinishedPrompts: Sendable {
    private let list = Mutex<[(path: String, unlocked: Bool, objects: [String])]>([])

    func add(_ path: String, unlocked: Bool, _ objects: [String]) {
        list.withLock { $0.append((path, unlocked, objects)) }
    }

    /// The prompts finished since the last call.
    func take() -> [(path: String, unlocked: Bool, objects: [String])] {
        list.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
