import Foundation
import KeychainCore

/// How a ``SyncDevice`` runs.
public struct SyncOptions: Sendable {
    /// The wall clock the hybrid logical clock reads (tests skew it).
    public var now: @Sendable () -> Date
    /// How many losing versions ``SyncDevice/history(for:)`` returns at most, newest first.
    public var historyDepth: Int
    /// How many characters (5 bits each) a join code has: 10 (50 bits); tests lower it to grind codes.
    var joinCodeCharacters = 10

    /// Creates options: the system clock, and five versions of history.
    public init(now: @escaping @Sendable () -> Date = { Date() }, historyDepth: Int = 5) {
        self.now = now
        self.historyDepth = historyDepth
    }
}

/// Where a device stands in its circle.
public enum SyncMembership: String, Sendable, Codable {
    /// It asked to join and waits for a trusted device to approve its code.
    case joining
    /// It is a trusted member.
    case member
    /// A member removed it: it reads and writes nothing any more.
    case excluded
    /// This device refused it: it signed two histories (two entries under one sequence, a broken chain) or its
    /// clock went back; its log counts only up to before the fault (``SyncStatus/refused``).
    case refused
}

/// A device of the circle, as ``SyncDevice/devices()`` lists it.
public struct SyncDeviceInfo: Sendable, Equatable, Codable {
    /// The device id (32 hexadecimal digits).
    public var id: String
    /// The name it was given.
    public var name: String
    /// Where it stands: members, devices waiting for approval, removed devices.
    public var membership: SyncMembership
    /// Whether it is this device.
    public var isThisDevice: Bool
    /// Its join code (what its user reads out to approve it).
    public var joinCode: String
}

/// This device's sync state, as ``SyncDevice/status()`` reports it.
public struct SyncStatus: Sendable, Equatable, Codable {
    /// This device's id.
    public var deviceID: String
    /// Its name.
    public var deviceName: String
    /// Where it stands in the circle.
    public var membership: SyncMembership
    /// The store's URL, any password in it hidden (`***`): status is shown and logged.
    public var storeURL: String
    /// The circle's code (the circle code of the device that created it), to give `sync-join --circle` on a new
    /// device; empty before this device has seen the circle.
    public var circleCode: String
    /// The newest epoch of the circle's top-level key this device holds (0 when none).
    public var epoch: Int
    /// How many devices are trusted members.
    public var memberCount: Int
    /// How many synchronizable items are shown in this keychain.
    public var itemCount: Int
    /// Item versions this device cannot open yet (their epoch's key has not been shared with it).
    public var pendingCount: Int
    /// Where this device is in its keychain's change feed.
    public var feedCursor: Int64
    /// This device's hybrid clock.
    public var clock: HybridTime
    /// The devices this device refused, by id: why (two histories signed, a clock that went back).
    public var refused: [String: String] = [:]
    /// Where another member's acknowledgment names another entry than this device holds at the same place of a
    /// log: the store showed the two of them different histories (a fork), or the log's author signed two.
    public var disagreements: [SyncDisagreement] = []
    /// For each log a member has read further than this device, how far: the store delays or withholds those
    /// entries from this device (a while is normal; for long, the store is withholding them).
    public var unseen: [String: Int64] = [:]
}

/// A member that holds another entry than this device at a place of a log (``SyncStatus/disagreements``).
public struct SyncDisagreement: Sendable, Equatable, Codable {
    /// The member whose acknowledgment names the other entry.
    public var member: String
    /// The log's author.
    public var author: String
    /// The place in the log.
    public var sequence: Int64
}

/// What one ``SyncDevice/syncOnce()`` did.
public struct SyncReport: Sendable, Equatable, Codable {
    /// Log entries read from the store.
    public var received = 0
    /// Log entries this device wrote.
    public var sent = 0
    /// Local items added, changed or deleted to match the circle.
    public var applied = 0
    /// What could not be done this time (a locked class, a record that failed to verify), to retry next time.
    public var problems: [String] = []
}

/// A kept losing version of an item (``SyncDevice/history(for:)``).
public struct SyncHistoryEntry: Sendable, Equatable, Codable {
    /// The device that wrote it.
    public var author: String
    /// When, on the circle's hybrid clock.
    public var clock: HybridTime
    /// The item's sync UUID (another UUID than the winner's when two devices created the same primary key).
    public var uuid: UUID
    /// Its attributes (without dates).
    public var attributes: ItemAttributes
    /// Its secret.
    public var data: Data
}
