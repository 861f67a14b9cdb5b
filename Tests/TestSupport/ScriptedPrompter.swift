import Foundation
import KeychainCore
import KeychainPrompts
import Synchronization

/// A prompter that answers from a script instead of a terminal, and records what it was asked.
public final class ScriptedPrompter: SecretPrompter {
    /// One answer: a typed secret, a cancel, or no way to ask.
    public enum Answer: Sendable {
        /// The user types this text.
        case type(String)
        /// The user cancels.
        case cancel
        /// There is no way to ask.
        case unavailable
    }

    private let answers: Mutex<[Answer]>
    private let requests = Mutex<[SecretPromptRequest]>([])

    /// A prompter that gives `answers` in order, then `unavailable`.
    public init(_ answers: [Answer]) {
        self.answers = Mutex(answers)
    }

    /// What was asked, in order.
    package var asked: [SecretPromptRequest] { requests.withLock { $0 } }

    package func ask(_ request: SecretPromptRequest) -> SecretPromptOutcome {
        requests.withLock { $0.append(request) }
        let answer = answers.withLock { $0.isEmpty ? Answer.unavailable : $0.removeFirst() }
        switch answer {
        case .type(let text):
            guard let bytes = try? SecureBytes(count: text.utf8.count) else { return .unavailable("no memory") }
            bytes.withUnsafeMutableBytes { $0.copyBytes(from: text.utf8) }
            return .entered(bytes)
        case .cancel: return .canceled
        case .unavailable: return .unavailable("the script has no answer")
        }
    }
}

/// A context that asks `prompter`, with a clock the test moves.
public func scriptedContext(_ prompter: ScriptedPrompter, clock: @escaping @Sendable () -> Date = { Date() })
    -> AuthenticationContext
{
    AuthenticationContext(prompter: prompter, clock: clock)
}
