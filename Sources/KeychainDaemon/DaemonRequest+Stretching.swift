import KeychainCore
import KeychainWire

extension DaemonRequest {
    /// Whether carrying the request out may stretch a passcode or an application password with Argon2id, so that
    /// it takes one of the user's turns at that (``UserLimits/passcodeChecks``): only a keychain request may
    /// (``BackendRequest/mayStretchPasscode``).
    var mayStretchPasscode: Bool {
        guard case .backend(let request) = self else { return false }
        return request.mayStretchPasscode
    }
}
