import Foundation

/// The trust circle as the verified log entries define it: a pure function of the set of entries, so every device
/// that holds the same entries agrees on it.
///
/// Entries are taken in hybrid-clock order (a device's writes after it saw an entry sort after that entry). The
/// first genesis makes its author the first member; an approval by a member admits a device; an exclusion by a
/// member removes one for good (its log counts only up to the exclusion's ``LogEntry/acceptedThrough``) and
/// defines a new epoch; shares by members carry epochs' top-level keys.
struct TrustState: Sendable {
    /// The device that created the circle.
    private(set) var founder: String?
    /// The current members and their public identities.
    private(set) var members: [String: PublicIdentity] = [:]
    /// Every device ever admitted (excluded ones too): whose records may be accepted.
    private(set) var admitted: [String: PublicIdentity] = [:]
    /// Excluded devices: up to which sequence their logs stay valid.
    private(set) var excluded: [String: Int64] = [:]
    /// The epochs defined, with their wrapped class keys.
    private(set) var epochs: [EpochID: EpochDefinition] = [:]
    /// Top-level keys shared by members: by epoch, then recipient.
    private(set) var shares: [EpochID: [String: KeyShare]] = [:]

    /// The founder this device pinned (``SyncDevice`` stores it once it belongs to a circle): a genesis by anyone
    /// else is ignored, so a store cannot found a circle of its own under the devices' feet.
    private let pinnedFounder: String?
    /// The cut each accepted exclusion made, by excluded device.
    private var appliedCutoffs: [String: Int64] = [:]

    /// The circle defined by `entries` (any order; those that are not trust entries are ignored), founded by
    /// `founder` when given.
    init(_ entries: [LogEntry], founder: String? = nil) {
        let trust = entries.filter { [.genesis, .approval, .exclusion, .share].contains($0.kind) }
        let ordered = trust.sorted { ($0.clock, $0.author, $0.sequence) < ($1.clock, $1.author, $1.sequence) }
        // A device's log is cut at the earliest exclusion of it that a member wrote, whatever order the rest is in.
        // Which exclusions a member wrote depends on the cuts, so the cuts are found again until they settle; only
        // exclusions the circle accepted count (one by a stranger or an excluded device cuts nothing).
        var cutoffs: [String: Int64] = [:]
        var state = TrustState(pinnedFounder: founder)
        for _ in 0..<16 {
            state = TrustState(pinnedFounder: founder)
            for entry in ordered {
                if let cutoff = cutoffs[entry.author], entry.sequence > cutoff { continue }
                state.apply(entry)
            }
            if state.appliedCutoffs == cutoffs { break }
            cutoffs = state.appliedCutoffs
        }
        self = state
    }

    private init(pinnedFounder: String?) {
        self.pinnedFounder = pinnedFounder
    }

    private mutating func apply(_ entry: LogEntry) {
        switch entry.kind {
        case .genesis:
            guard founder == nil, pinnedFounder.map({ $0 == entry.author }) ?? true, let identity = entry.member,
                (try? identity.deviceID) == entry.author, let epoch = entry.epoch, epoch.id.number == 1,
                epoch.id.creator == entry.author
            else { return }
            founder = entry.author
            members[entry.author] = identity
            admitted[entry.author] = identity
            epochs[epoch.id] = epoch
        case .approval:
            guard members[entry.author] != nil, let identity = entry.member, let device = try? identity.deviceID,
                excluded[device] == nil
            else { return }
            members[device] = identity
            admitted[device] = identity
        case .exclusion:
            guard members[entry.author] != nil, let device = entry.subject, device != entry.author,
                members[device] != nil, let through = entry.acceptedThrough
            else { return }
            members[device] = nil
            excluded[device] = through
            appliedCutoffs[device] = min(appliedCutoffs[device] ?? .max, through)
            if let epoch = entry.epoch, epoch.id.creator == entry.author, epochs[epoch.id] == nil {
                epochs[epoch.id] = epoch
            }
        case .share, .item, .tombstone, .acknowledgment, .compaction:
            guard members[entry.author] != nil else { return }
        }
        for share in entry.shares ?? [] where members[share.recipient] != nil && excluded[share.recipient] == nil {
            shares[share.epoch, default: [:]][share.recipient] = share
        }
    }

    /// Whether the entry at `sequence` of `author`'s log counts: its author was admitted, and not cut off by an
    /// exclusion.
    func accepts(author: String, sequence: Int64) -> Bool {
        guard admitted[author] != nil else { return false }
        if let through = excluded[author] { return sequence <= through }
        return true
    }

    /// The newest epoch, which writers use.
    var currentEpoch: EpochID? { epochs.keys.max() }

    /// Every device the circle has heard of: identities by id.
    var isEmpty: Bool { founder == nil }
}
