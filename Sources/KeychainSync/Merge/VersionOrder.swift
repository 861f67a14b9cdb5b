/// The order of item versions: a version dated too far ahead (``ClockBounds``) below every other, then by hybrid
/// clock, then by author (device id), then by log position; the greatest wins on every device.
struct VersionKey: Comparable, Hashable {
    var isWithinBounds: Bool
    var clock: HybridTime
    var author: String
    var sequence: Int64

    /// The key of a kept entry, as `bounds` judge its clock.
    init(_ entry: SyncDatabase.StoredEntry, bounds: ClockBounds) {
        isWithinBounds = !bounds.isAhead(author: entry.author, sequence: entry.sequence, clock: entry.clock)
        clock = entry.clock
        author = entry.author
        sequence = entry.sequence
    }

    static func < (lhs: VersionKey, rhs: VersionKey) -> Bool {
        (lhs.isWithinBounds ? 1 : 0, lhs.clock, lhs.author, lhs.sequence)
            < (rhs.isWithinBounds ? 1 : 0, rhs.clock, rhs.author, rhs.sequence)
    }
}

/// What the accepted entries of one sync item say: it is deleted (a tombstone is final), or its winning version.
enum ItemResolution {
    case dead
    case live(winner: SyncDatabase.StoredEntry)

    static func resolve(_ entries: [SyncDatabase.StoredEntry], bounds: ClockBounds) -> ItemResolution? {
        guard !entries.isEmpty else { return nil }
        if entries.contains(where: { $0.kind == .tombstone }) { return .dead }
        let versions = entries.filter { $0.kind == .item }
        guard let winner = versions.max(by: { VersionKey($0, bounds: bounds) < VersionKey($1, bounds: bounds) })
        else { return nil }
        return .live(winner: winner)
    }
}
