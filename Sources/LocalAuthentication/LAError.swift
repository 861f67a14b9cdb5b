import Foundation

/// An error of an ``LAContext``, with Apple's codes (`LAError.h`), so `catch LAError.userCancel` works as on iOS.
public struct LAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Apple's error codes.
    public enum Code: Int, Sendable {
        /// The user failed to provide valid credentials.
        case authenticationFailed = -1
        /// The user canceled.
        case userCancel = -2
        /// The user chose the fallback.
        case userFallback = -3
        /// The system canceled the authentication.
        case systemCancel = -4
        /// No passcode is set (the keychain has none).
        case passcodeNotSet = -5
        /// Biometry is not available (never on Linux).
        case biometryNotAvailable = -6
        /// No biometric identity is enrolled.
        case biometryNotEnrolled = -7
        /// Biometry is locked out.
        case biometryLockout = -8
        /// The app canceled the authentication (``LAContext/invalidate()``).
        case appCancel = -9
        /// The context was invalidated.
        case invalidContext = -10
        /// No paired watch is available.
        case watchNotAvailable = -11
        /// Interaction is needed but not allowed (``LAContext/interactionNotAllowed``, or no way to ask).
        case notInteractive = -1004
    }

    /// The code.
    public let code: Code
    /// What went wrong.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, message: String = "") {
        self.code = code
        self.message = message
    }

    /// Whether two errors have the same code.
    public static func == (lhs: LAError, rhs: LAError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The message and the code.
    public var description: String { "\(message) (LAError \(code.rawValue))" }

    /// The error as `NSError` in Apple's domain, for `canEvaluatePolicy(_:error:)`.
    var nsError: NSError {
        NSError(
            domain: "com.apple.LocalAuthentication", code: code.rawValue,
            userInfo: [NSLocalizedDescriptionKey: message])
    }

    /// Apple's names for the codes, as static members: `LAError.userCancel`.
    public static let authenticationFailed = Code.authenticationFailed
    /// The user canceled.
    public static let userCancel = Code.userCancel
    /// The user chose the fallback.
    public static let userFallback = Code.userFallback
    /// The system canceled.
    public static let systemCancel = Code.systemCancel
    /// No passcode is set.
    public static let passcodeNotSet = Code.passcodeNotSet
    /// Biometry is not available.
    public static let biometryNotAvailable = Code.biometryNotAvailable
    /// The app canceled.
    public static let appCancel = Code.appCancel
    /// The context was invalidated.
    public static let invalidContext = Code.invalidContext
    /// Interaction is not allowed.
    public static let notInteractive = Code.notInteractive
}

extension LAError.Code {
    /// `LAError.userCancel` and friends as patterns: `catch LAError.userCancel`.
    public static func ~= (code: LAError.Code, error: any Error) -> Bool {
        (error as? LAError)?.code == code
    }
}
