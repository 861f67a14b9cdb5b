import Foundation

/// The one shape of the errors the APIs above the engine throw (`KeychainError`, `FileProtectionError`): Apple's
/// `OSStatus` for what went wrong and a message that names the cause.
///
/// Such errors compare and hash by ``status`` alone, so new statuses can be added without breaking a caller's
/// checks, and a `catch` of one (`catch KeychainError.decode`, through the type's `~=` and ``matches(_:)``) matches
/// whatever the thrown type. Each API keeps its
/// own type so that its `throws(…)` names one error a caller can switch over.
public protocol StatusError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Apple's `OSStatus` value, such as `-25308` for `errSecInteractionNotAllowed`.
    var status: Int32 { get }
    /// What went wrong, naming the key, value or file at fault.
    var message: String { get }

    /// Creates an error with a status and a message.
    init(status: Int32, message: String)
}

extension StatusError {
    /// Whether two errors have the same status (messages are ignored).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.status == rhs.status }

    /// Hashes the status.
    public func hash(into hasher: inout Hasher) { hasher.combine(status) }

    /// Whether `value` is an error of this type with this status, whatever the thrown type: what each conforming
    /// type's `~=` answers (an operator from a protocol extension is not found by `catch` patterns).
    public func matches(_ value: any Error) -> Bool {
        (value as? Self).map { $0 == self } ?? false
    }

    /// The message followed by the status: `… (-25308)`.
    public var description: String { "\(message) (\(status))" }

    /// The message.
    public var errorDescription: String? { message }

    /// The error for an engine status, with its message.
    package init(_ code: EngineError.Code, _ message: String) {
        self.init(status: code.rawValue, message: message)
    }

    /// The single mapping from the engine's error: its status kept, its message prefixed by `context` (what was
    /// being done, or the file at fault).
    package init(_ error: EngineError, prefix context: String) {
        self.init(status: error.status, message: "\(context): \(error.message)")
    }
}
