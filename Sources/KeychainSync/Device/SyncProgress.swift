/// How far a sync pass is (``SyncDevice/syncOnce(progress:)``): what a progress line shows during a device's first
/// pass in a large circle.
public struct SyncProgress: Sendable, Equatable {
    /// The part of the pass.
    public enum Phase: Sendable, Equatable {
        /// Fetching the store's new records and checking their signatures.
        case receiving
        /// Deciding each item from its versions and writing it to the keychain.
        case applying
    }

    /// The part of the pass.
    public var phase: Phase
    /// Records (receiving) or items (applying) done so far.
    public var done: Int
    /// Records or items in all.
    public var total: Int

    /// Creates a report of progress.
    public init(phase: Phase, done: Int, total: Int) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}
