import Foundation

/// One record of a device's log in the store: an item version, a tombstone, or a step of the trust circle.
///
/// A device appends to its own log only, each entry under the next sequence number (``RecordName/log(_:_:)``), and
/// signs every entry; nothing in an entry names a service, account, server or label (those are inside the sealed
/// payload). The clear fields are what every device needs to order and check records without opening them.
struct LogEntry: Codable, Sendable, Equatable {
    /// What an entry is.
    enum Kind: String, Codable, Sendable {
        /// A version of an item (sealed).
        case item
        /// An item's deletion, final for its sync UUID.
        case tombstone
        /// The circle's creation: its author is the first member, and epoch 1 is defined.
        case genesis
        /// A member admits ``LogEntry/member`` and shares the epochs' keys with it.
        case approval
        /// A member excludes ``LogEntry/subject`` and defines a new epoch shared with the others only.
        case exclusion
        /// A member shares an epoch's key with another member that lacks it.
        case share
        /// A member says how far it has read each device's log (``LogEntry/cursors``), acknowledging the tombstones
        /// up to there.
        case acknowledgment
        /// The author is about to delete the listed records of its own log (``LogEntry/removed``): tombstones
        /// every member acknowledged, and its versions of the items they deleted.
        case compaction
        /// A member defines a new epoch shared with the current members only (``LogEntry/epoch``): written when
        /// no epoch is left that only members hold.
        case rekey
        /// A member answers a join request (``LogEntry/subject``, whose ``LogEntry/commitment`` it pins) with its
        /// pairing nonce (``LogEntry/nonce``): the first half of the join code (``JoinPairing``).
        case answer
        /// A joining device reveals the pairing nonce it committed to (``LogEntry/nonce``), once answered.
        case reveal
    }

    /// The format: 3 is binary (``CompactEntry``: item versions and tombstones, read back with 3 here); 2 is JSON
    /// and names the author's previous entry (``previous``); 1, written before, does not. Which one an entry is
    /// written in is decided when it is signed (``SignedRecord/seal(_:name:signer:)``), not by this field.
    var format = 2
    /// The writing device's id (its log's).
    var author: String
    /// The entry's place in its author's log, from 1.
    var sequence: Int64
    /// When it was written, on the author's hybrid logical clock.
    var clock: HybridTime
    /// What it is.
    var kind: Kind
    /// The item version, for ``Kind/item`` and ``Kind/tombstone``.
    var item: SealedVersion?
    /// The device admitted (``Kind/approval``) or created the circle (``Kind/genesis``).
    var member: PublicIdentity?
    /// The device excluded (``Kind/exclusion``).
    var subject: String?
    /// The hash (``EntryHash``) of the author's entry at `sequence - 1`, empty for the first: each author's log is
    /// a chain, so a device cannot show two histories without signing both, and cannot rewrite what an exclusion
    /// pinned.
    var previous: Data?
    /// The excluded device's log entries up to this sequence stay valid (``Kind/exclusion``): how far the author
    /// had read it without a gap.
    var acceptedThrough: Int64?
    /// The hash of the excluded device's entry at ``acceptedThrough`` as the author read it (``Kind/exclusion``).
    var acceptedHash: Data?
    /// The epoch defined (``Kind/genesis``, ``Kind/exclusion``).
    var epoch: EpochDefinition?
    /// Top-level keys sealed to members.
    var shares: [KeyShare]?
    /// How far the author has read each device's log: every sequence up to the cursor is read or compacted
    /// (``Kind/acknowledgment``).
    var cursors: [String: Int64]?
    /// The hash (``EntryHash``) of the entry each cursor stands on (``Kind/acknowledgment``): members that were
    /// shown different histories of one log find out from each other's acknowledgments.
    var heads: [String: Data]?
    /// The sequences of the author's log it deletes (``Kind/compaction``).
    var removed: [Int64]?
    /// A pairing nonce (``Kind/answer``, ``Kind/reveal``).
    var nonce: Data?
    /// The join request's commitment an answer was given to (``Kind/answer``).
    var commitment: Data?
}

/// An item version as the store holds it: the padded item sealed under a sync class key of an epoch (format 3), or,
/// in formats 1 and 2, under an item key wrapped by that class key (``ItemSealing``). A tombstone carries only the
/// UUID.
struct SealedVersion: Codable, Sendable, Equatable {
    /// The item's sync UUID (the same on every device).
    var uuid: UUID
    /// The epoch whose class key wraps the item key.
    var epoch: EpochID?
    /// The sync class key's kind (`ak` or `ck`).
    var keyClass: SyncKeyClass?
    /// The item key, wrapped by the class key (formats 1 and 2 only).
    var wrappedKey: Data?
    /// The item (class, attributes, secret), padded and sealed.
    var payload: Data?
}

/// An epoch of the circle's top-level key: a number, and the device that defined it (two members excluding
/// devices at once may both define the next number; both stay readable).
struct EpochID: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    var number: Int
    var creator: String

    static func < (lhs: EpochID, rhs: EpochID) -> Bool {
        (lhs.number, lhs.creator) < (rhs.number, rhs.creator)
    }

    var description: String { "\(number)" }
}

/// An epoch's sync class keys, each wrapped by the epoch's top-level key.
struct EpochDefinition: Codable, Sendable, Equatable {
    var id: EpochID
    var classKeys: [SyncKeyClass: Data]
}

/// A top-level key sealed to one member's X25519 key (the entry carrying it is signed by the sharer).
struct KeyShare: Codable, Sendable, Equatable {
    var epoch: EpochID
    var recipient: String
    var sealed: Data
}

/// The kinds of sync class key: items readable only while unlocked, and the rest.
enum SyncKeyClass: String, Codable, Sendable, CaseIterable, CodingKeyRepresentable {
    /// For `ak` items.
    case whenUnlocked = "ak"
    /// For `ck` and `dk` items.
    case afterFirstUnlock = "ck"
}
