import Foundation

/// The trust circle as the verified log entries define it: a pure function of the entries and the evidence kept
/// with them (``TrustEvidence``), so every device that holds the same entries agrees on it.
///
/// Admissions are taken in hybrid-clock order (a device's writes after it saw an entry sort after that entry): the
/// first genesis (or the pinned founder's) makes its author the first member, and an approval by a member admits a
/// device. Exclusions take effect by sequence cuts, never by clock (issue 21, item 1): an exclusion of Y by X cuts
/// Y's log after ``LogEntry/acceptedThrough``, and an exclusion that X wrote above a cut on X is void, however it
/// is dated. Two exclusions each above the other's cut (X and Y excluding each other) are decided by the other
/// members' acknowledgments: the one most of them read first stands; when none tells them apart, both stand (a
/// removed device can take its remover out with it, but never get back in). An author refused for equivocation
/// (two bodies under one sequence, a broken chain, a clock that went back) counts only up to before the fault.
/// Epochs come from the genesis, from exclusions that stand and from rekeys; shares by members carry their keys.
struct TrustState: Sendable {
    /// The device that created the circle.
    private(set) var founder: String?
    /// The current members and their public identities.
    private(set) var members: [String: PublicIdentity] = [:]
    /// Every device ever admitted (excluded ones too): whose records may be accepted.
    private(set) var admitted: [String: PublicIdentity] = [:]
    /// Excluded devices: up to which sequence their logs stay valid.
    private(set) var excluded: [String: Int64] = [:]
    /// Devices refused for equivocation: the sequence from which their logs count for nothing.
    private(set) var refused: [String: Int64] = [:]
    /// The epochs defined, with their wrapped class keys.
    private(set) var epochs: [EpochID: EpochDefinition] = [:]
    /// Top-level keys shared by members: by epoch, then recipient.
    private(set) var shares: [EpochID: [String: KeyShare]] = [:]

    /// The founder this device pinned (``SyncDevice`` stores it once it belongs to a circle): a genesis by anyone
    /// else is ignored, so a store cannot found a circle of its own under the devices' feet.
    private let pinnedFounder: String?

    /// The circle defined by `entries` (any order; those that are not trust entries are ignored), founded by
    /// `founder` when given.
    init(_ entries: [LogEntry], founder: String? = nil, evidence: TrustEvidence = TrustEvidence()) {
        let trust = entries.filter { [.genesis, .approval, .exclusion, .share, .rekey].contains($0.kind) }
        let ordered = trust.sorted { ($0.clock, $0.author, $0.sequence) < ($1.clock, $1.author, $1.sequence) }
        var cuts = evidence.refused.mapValues { $0 - 1 }
        var state = TrustState(pinnedFounder: founder)
        // Which devices are admitted depends on the cuts (an approval above its author's cut admits nobody), and
        // the cuts on which exclusions stand: found again until they settle.
        for _ in 0..<16 {
            state = TrustState(pinnedFounder: founder)
            state.refused = evidence.refused
            for entry in ordered where entry.kind != .exclusion {
                if let cut = cuts[entry.author], entry.sequence > cut { continue }
                state.admit(entry)
            }
            let standing = ExclusionResolver(
                candidates: trust.filter { $0.kind == .exclusion }, admitted: state.admitted, evidence: evidence
            ).standing()
            var next = evidence.refused.mapValues { $0 - 1 }
            for exclusion in standing {
                guard let subject = exclusion.subject, let through = exclusion.acceptedThrough else { continue }
                next[subject] = min(next[subject] ?? .max, through)
            }
            state.exclude(standing, cuts: next)
            if next == cuts { break }
            cuts = next
        }
        self = state
    }

    private init(pinnedFounder: String?) {
        self.pinnedFounder = pinnedFounder
    }

    /// Applies an entry that is not an exclusion.
    private mutating func admit(_ entry: LogEntry) {
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
            guard members[entry.author] != nil, let identity = entry.member, let device = try? identity.deviceID
            else { return }
            members[device] = identity
            admitted[device] = identity
        case .rekey:
            guard members[entry.author] != nil, let epoch = entry.epoch, epoch.id.creator == entry.author,
                epochs[epoch.id] == nil
            else { return }
            epochs[epoch.id] = epoch
        case .share, .item, .tombstone, .acknowledgment, .compaction, .exclusion, .answer, .reveal:
            guard members[entry.author] != nil else { return }
        }
        for share in entry.shares ?? [] where members[share.recipient] != nil {
            shares[share.epoch, default: [:]][share.recipient] = share
        }
    }

    /// Removes the subjects of the exclusions that stand, adopts their epochs, and drops shares to devices that are
    /// no longer members.
    private mutating func exclude(_ standing: [LogEntry], cuts: [String: Int64]) {
        for exclusion in standing {
            guard let subject = exclusion.subject else { continue }
            excluded[subject] = cuts[subject]
            if let epoch = exclusion.epoch, epoch.id.creator == exclusion.author, epochs[epoch.id] == nil {
                epochs[epoch.id] = epoch
            }
            for share in exclusion.shares ?? [] where share.recipient != subject {
                shares[share.epoch, default: [:]][share.recipient] = share
            }
        }
        let gone = Set(excluded.keys).union(refused.keys)
        for device in gone { members[device] = nil }
        for (epoch, recipients) in shares {
            if recipients.keys.contains(where: gone.contains) { retiredEpochs.insert(epoch) }
            shares[epoch] = recipients.filter { members[$0.key] != nil }
        }
    }

    /// Whether the entry at `sequence` of `author`'s log counts: its author was admitted, and not cut off by an
    /// exclusion or refused from that sequence on.
    func accepts(author: String, sequence: Int64) -> Bool {
        guard admitted[author] != nil else { return false }
        if let through = excluded[author], sequence > through { return false }
        if let from = refused[author], sequence >= from { return false }
        return true
    }

    /// The newest epoch, which writers use: the newest whose key no excluded or refused device was given (an
    /// exclusion that stands beside another, each by the other's subject, leaves none until a member rekeys).
    var currentEpoch: EpochID? {
        epochs.keys.filter(isSealable).max()
    }

    /// Whether `epoch` may seal new items: defined, and shared with no device that is not a member now.
    func isSealable(_ epoch: EpochID) -> Bool {
        guard let definition = epochs[epoch] else { return false }
        return !retiredEpochs.contains(definition.id)
    }

    /// The epochs a standing exclusion or refusal retired: those whose keys an excluded or refused device held.
    private(set) var retiredEpochs: Set<EpochID> = []

    /// Every device the circle has heard of: identities by id.
    var isEmpty: Bool { founder == nil }
}
