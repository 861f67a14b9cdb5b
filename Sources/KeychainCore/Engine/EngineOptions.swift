import Foundation

/// Settings of an engine instance.
public struct EngineOptions: Sendable {
    /// The Argon2id cost of new passcodes (existing ones keep the cost they were set with).
    public var passcodeCost: PasscodeCost
    /// The clock (tests move it to cross passcode waits).
    public var now: @Sendable () -> Date

    /// Creates options.
    public init(passcodeCost: PasscodeCost = .standard, now: @escaping @Sendable () -> Date = { Date() }) {
        self.passcodeCost = passcodeCost
        self.now = now
    }
}
