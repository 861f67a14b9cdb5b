import Foundation
import KeychainClient
import KeychainCore
import KeychainPrompts
import Synchronization

/// Apple's `LAContext` on Linux: the user proves presence by typing the keychain passcode, at the controlling
/// terminal or through `pinentry` (DESIGN §11). Pass one with `kSecUseAuthenticationContext` to reuse what it
/// evaluated, to supply an application password, or to forbid prompts.
///
/// An `NSObject`, as Apple's is: equal and hashable by identity, so code that compares contexts or puts one in a
/// `[String: AnyHashable]` query (`kSecUseAuthenticationContext`) works unchanged.
///
/// Thread-safe: its state is the `KeychainCore/AuthenticationContext` it wraps.
public final class LAContext: NSObject, AuthenticationContextProviding, Sendable {
    /// The context the keychain uses.
    public let authenticationContext: AuthenticationContext

    /// Creates a context that asks at the controlling terminal, else through `pinentry`.
    public override init() {
        authenticationContext = AuthenticationContext()
        givenBackend = nil
    }

    /// The keychain a test evaluates against, instead of the process's default one.
    private let givenBackend: (any KeychainBackend)?

    /// A context over one the caller made (a test's, with its own prompter), evaluated against `backend` when given
    /// (else the process's default keychain).
    package init(authenticationContext: AuthenticationContext, backend: (any KeychainBackend)? = nil) {
        self.authenticationContext = authenticationContext
        givenBackend = backend
    }

    /// How long after an evaluation (or a prompt) the typed passcode opens items again without asking; at most
    /// ``LATouchIDAuthenticationMaximumAllowableReuseDuration``.
    public var touchIDAuthenticationAllowableReuseDuration: Double {
        get { authenticationContext.reuseDuration }
        set { authenticationContext.reuseDuration = newValue }
    }

    /// Whether calls with this context fail rather than ask (``LAError/Code/notInteractive``,
    /// `errSecInteractionNotAllowed`).
    public var interactionNotAllowed: Bool {
        get { authenticationContext.interactionNotAllowed }
        set { authenticationContext.interactionNotAllowed = newValue }
    }

    /// The reason shown at the prompt when a keychain call gives no `kSecUseOperationPrompt`.
    public var localizedReason: String {
        get { authenticationContext.localizedReason ?? "" }
        set { authenticationContext.localizedReason = newValue.isEmpty ? nil : newValue }
    }

    /// The title of the prompt's cancel button (pinentry's).
    public var localizedCancelTitle: String? {
        get { authenticationContext.cancelTitle }
        set { authenticationContext.cancelTitle = newValue }
    }

    /// The fallback button's title. Kept for code that sets it; no prompt here shows one, since the passcode is the
    /// only way.
    public var localizedFallbackTitle: String? {
        get { fallbackTitle.withLock { $0 } }
        set { fallbackTitle.withLock { $0 = newValue } }
    }
    private let fallbackTitle = Mutex<String?>(nil)

    /// Always ``LABiometryType/none``: Linux machines have no sensor this library can use.
    public var biometryType: LABiometryType { .none }

    /// Whether the policy can be evaluated: only ``LAPolicy/deviceOwnerAuthentication``, and only on a keychain
    /// with a passcode (else ``LAError/Code/passcodeNotSet``).
    public func canEvaluatePolicy(_ policy: LAPolicy, error errorPointer: UnsafeMutablePointer<NSError?>?) -> Bool {
        do {
            try check(policy)
            return true
        } catch {
            errorPointer?.pointee = (error as? LAError ?? LAError(.authenticationFailed, message: "\(error)")).nsError
            return false
        }
    }

    /// Asks for the keychain passcode and checks it; `reply` gets `true`, or `false` and an ``LAError``. Runs on a
    /// thread of its own, so the caller's is never blocked. The keychain's lock state does not change: the context
    /// keeps the passcode (in guarded memory) and passes it with the requests of items that need it.
    public func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        Thread.detachNewThread { [self] in
            do {
                try evaluate(policy, reason: localizedReason)
                reply(true, nil)
            } catch {
                reply(false, error)
            }
        }
    }

    /// Asks for the keychain passcode and checks it; returns `true` or throws an ``LAError``.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Sets (`nil`: clears) a credential; returns whether it was set.
    @discardableResult
    public func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        switch type {
        case .applicationPassword:
            // Straight into guarded memory: the caller's Data is theirs, and no String of it is made here.
            guard let credential else {
                return (try? authenticationContext.setApplicationPassword(nil as Passcode?)) != nil
            }
            guard let password = try? Passcode(copying: credential) else { return false }
            return (try? authenticationContext.setApplicationPassword(password)) != nil
        }
    }

    /// Whether a credential of that type is set.
    public func isCredentialSet(_ type: LACredentialType) -> Bool {
        switch type {
        case .applicationPassword: authenticationContext.hasApplicationPassword
        }
    }

    /// Ends the context: what it evaluated is forgotten (keychain calls with it ask again), and evaluating it again
    /// is ``LAError/Code/invalidContext``.
    public func invalidate() {
        authenticationContext.invalidate()
    }

    private func check(_ policy: LAPolicy) throws {
        switch policy {
        case .deviceOwnerAuthentication: break
        case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrWatch:
            throw LAError(.biometryNotAvailable, message: "no biometric sensor is available on this machine")
        case .deviceOwnerAuthenticationWithWatch:
            throw LAError(.watchNotAvailable, message: "no paired watch is available on this machine")
        }
        guard !authenticationContext.isInvalidated else {
            throw LAError(.invalidContext, message: "the context was invalidated")
        }
        let status: KeybagStatus
        do {
            status = try backend().keybagStatus()
        } catch {
            throw LAError(.authenticationFailed, message: "the keychain cannot be reached: \(error.message)")
        }
        guard status.hasPasscode else {
            throw LAError(
                .passcodeNotSet, message: "the keychain has no passcode (set one with security set-keychain-password)")
        }
    }

    private func evaluate(_ policy: LAPolicy, reason: String) throws {
        try check(policy)
        do {
            try authenticationContext.evaluatePasscode(reason, in: try backend())
        } catch {
            switch error.code {
            case .userCanceled: throw LAError(.userCancel, message: error.message)
            case .interactionNotAllowed:
                throw LAError(
                    authenticationContext.isInvalidated ? .invalidContext : .notInteractive, message: error.message)
            default: throw LAError(.authenticationFailed, message: error.message)
            }
        }
    }

    /// The keychain whose passcode is the device owner's: the process's default one.
    private func backend() throws(EngineError) -> any KeychainBackend {
        if let givenBackend { return givenBackend }
        return try KeychainBackends.backend(for: .processDefault)
    }
}
