import Foundation

/// Settings of an engine instance.
public struct EngineOptions: Sendable {
    /// The Argon2id cost of new passcodes (existing ones keep the cost they were set with).
    public var passcodeCost: PasscodeCost
    /// The clock (tests move it to cross passcode waits).
    public var now: @Sendable () -> Date
    /// The most bytes (secrets, attributes) one `copyMatching` may gather; a search that would gather more stops
    /// with errSecDataTooLarge naming the limit. `nil` (the default): no limit. keychaind sets its message limit,
    /// so that no reply it could not send is ever gathered in its memory.
    package var resultByteLimit: Int?

    /// Creates options.
    public init(passcodeCost: PasscodeCost = .standard, now: @escaping @Sendable () -> Date = { Date() }) {
        self.passcodeCost = passcodeCost
        self.now = now
    }
}
