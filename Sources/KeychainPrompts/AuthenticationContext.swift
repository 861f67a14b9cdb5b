import Foundation
import KeychainCore
import Synchronization

/// What an app's authentication context holds between keychain calls (DESIGN §11): `LAContext` from
/// `LocalAuthentication` wraps one, and the `Keychain` API takes one directly.
///
/// A context remembers the passcode the user typed, in guarded memory, for its reuse window
/// (``reuseDuration``, at most ``maximumReuseDuration`` as Apple caps `touchIDAuthenticationAllowableReuseDuration`),
/// or, after ``evaluatePasscode(_:in:)``, until ``invalidate()``; a lock of the keychain ends every reuse.
/// Keychain calls with an invalidated context ask again, as a new context's would. An
/// application password set with ``setApplicationPassword(_:)`` is used for every call. Thread-safe.
public final class AuthenticationContext: Sendable {
    /// Apple's `LATouchIDAuthenticationMaximumAllowableReuseDuration`: 300 seconds.
    public static let maximumReuseDuration: TimeInterval = 300

    private struct State {
        var reuseDuration: TimeInterval = 0
        var interactionNotAllowed = false
        var localizedReason: String?
        var cancelTitle: String?
        var applicationPassword: Passcode?
        var passcode: Passcode?
        var passcodeEpoch: UInt64?
        var passcodeTime: Date?
        /// Set by an explicit evaluation: the passcode stays until invalidated (Apple's evaluated context).
        var passcodeKeptUntilInvalidated = false
        var isInvalidated = false
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> Date
    /// Asks the user; the system's prompter (terminal, then pinentry) unless a test gives another.
    package let prompter: any SecretPrompter

    /// Creates a context that asks through the controlling terminal, else `pinentry`.
    public convenience init() {
        self.init(prompter: SystemPrompter())
    }

    /// Creates a context with its own prompter and clock (tests).
    package init(prompter: any SecretPrompter, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.prompter = prompter
        self.clock = clock
    }

    /// How long a typed passcode opens items again without asking, capped at ``maximumReuseDuration``.
    public var reuseDuration: TimeInterval {
        get { state.withLock { $0.reuseDuration } }
        set { state.withLock { $0.reuseDuration = min(max(newValue, 0), Self.maximumReuseDuration) } }
    }

    /// Whether calls with this context fail with `errSecInteractionNotAllowed` rather than ask the user.
    public var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// The reason shown at the prompt when the call gives none (`LAContext.localizedReason`).
    public var localizedReason: String? {
        get { state.withLock { $0.localizedReason } }
        set { state.withLock { $0.localizedReason = newValue } }
    }

    /// The title of the prompt's cancel button, where the prompt has one (pinentry).
    public var cancelTitle: String? {
        get { state.withLock { $0.cancelTitle } }
        set { state.withLock { $0.cancelTitle = newValue } }
    }

    /// Whether ``invalidate()`` was called: an invalidated context never opens anything again.
    public var isInvalidated: Bool { state.withLock { $0.isInvalidated } }

    /// Sets (or, with `nil`, clears) the application password used for items whose access control names one.
    public func setApplicationPassword(_ password: Passcode?) throws(EngineError) {
        if password?.isEmpty == true { throw EngineError(.param, "the application password is empty") }
        state.withLock { $0.applicationPassword = password }
    }

    /// ``setApplicationPassword(_:)-(Passcode?)`` with the password's text (copied into guarded memory).
    public func setApplicationPassword(_ password: String?) throws(EngineError) {
        try setApplicationPassword(password.map { (text) throws(EngineError) in try Passcode(copying: text) })
    }

    /// Whether an application password is set.
    public var hasApplicationPassword: Bool { state.withLock { $0.applicationPassword != nil } }

    /// Ends what the context evaluated: every remembered secret is wiped, so the next keychain call with it asks
    /// again, and ``evaluatePasscode(_:in:)`` refuses it (`LAError.invalidContext`).
    public func invalidate() {
        state.withLock { state in
            state = State()
            state.isInvalidated = true
        }
    }

    /// Asks for the keychain passcode and checks it against `backend` (`LAContext.evaluatePolicy`): on success the
    /// context keeps it until ``invalidate()`` or the next lock, and passes it with the requests of items that need
    /// it. A wrong passcode is `errSecAuthFailed` and counts towards the keybag's waits; a cancel is
    /// `errSecUserCanceled`. The lock state does not change: an evaluation proves the user is there, it does not
    /// unlock the keychain.
    public func evaluatePasscode(_ reason: String?, in backend: any KeychainBackend) throws(EngineError) {
        guard !isInvalidated else { throw EngineError(.interactionNotAllowed, "the context was invalidated") }
        let status = try backend.keybagStatus()
        guard status.hasPasscode else {
            throw EngineError(.authFailed, "the keychain has no passcode to evaluate (passcodeNotSet)")
        }
        let passcode = try ask(.passcode, reason: reason, attempt: 1)
        try backend.checkPasscode(passcode)
        // The epoch of the check: a lock since then ends what the context may reuse.
        remember(passcode: passcode, epoch: status.lockEpoch, untilInvalidated: true)
    }

    /// The authentication a call brings: the remembered passcode while its reuse lasts, the application password,
    /// and the interaction the call allows.
    package func authentication(interaction: ItemAuthentication.Interaction) -> ItemAuthentication {
        let now = clock()
        return state.withLock { state in
            var authentication = ItemAuthentication(
                interaction: state.interactionNotAllowed ? .notAllowed : interaction)
            if interaction == .skipItems { authentication.interaction = .skipItems }
            authentication.applicationPassword = state.applicationPassword
            if let passcode = state.passcode, let time = state.passcodeTime,
                state.passcodeKeptUntilInvalidated || now.timeIntervalSince(time) <= state.reuseDuration
            {
                authentication.passcode = passcode
                authentication.passcodeEpoch = state.passcodeEpoch
            }
            return authentication
        }
    }

    /// Keeps a typed passcode for the reuse window (``reuseDuration``) from now.
    package func remember(passcode: Passcode, epoch: UInt64, untilInvalidated: Bool = false) {
        let now = clock()
        state.withLock { state in
            state.passcode = passcode
            state.passcodeEpoch = epoch
            state.passcodeTime = now
            state.passcodeKeptUntilInvalidated = state.passcodeKeptUntilInvalidated || untilInvalidated
        }
    }

    /// Forgets the remembered passcode (the keychain refused it: locked since, or changed).
    package func forgetPasscode() {
        state.withLock { state in
            state.passcode = nil
            state.passcodeTime = nil
            state.passcodeEpoch = nil
            state.passcodeKeptUntilInvalidated = false
        }
    }

    /// Asks the user for a secret: `errSecUserCanceled` when they cancel, `errSecInteractionNotAllowed` when there
    /// is no way to ask or the context may not.
    package func ask(
        _ kind: PromptedSecretKind, reason: String?, attempt: Int
    ) throws(EngineError) -> Passcode {
        let (notAllowed, defaultReason, cancelTitle) = state.withLock {
            ($0.interactionNotAllowed, $0.localizedReason, $0.cancelTitle)
        }
        guard !notAllowed else {
            throw EngineError(.interactionNotAllowed, "the authentication context does not allow interaction")
        }
        let request = SecretPromptRequest(
            kind: kind, operationPrompt: reason ?? defaultReason, cancelTitle: cancelTitle, attempt: attempt)
        switch prompter.ask(request) {
        case .entered(let bytes): return Passcode(bytes)
        case .canceled: throw EngineError(.userCanceled, "the user canceled the authentication")
        case .unavailable(let why):
            throw EngineError(
                .interactionNotAllowed, "the user's authentication is needed, but cannot be asked: \(why)")
        }
    }
}

/// An object that carries an ``AuthenticationContext``: `LAContext`, so `kSecUseAuthenticationContext` takes one
/// without `Security` depending on `LocalAuthentication`.
public protocol AuthenticationContextProviding: AnyObject {
    /// The context the keychain uses.
    var authenticationContext: AuthenticationContext { get }
}
