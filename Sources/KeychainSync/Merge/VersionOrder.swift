/// The order of item versions: by hybrid clock, then by author (device id), then by log position; the greatest
/// wins on every device.
struct VersionKey: Comparable, Hashable {
    var clock: HybridTime
    var author: String
    var sequence: Int64

    static func < (lhs: VersionKey, rhs: VersionKey) -> Bool {
        (lhs.clock, lhs.author, lhs.sequence) < (rhs.clock, rhs.author, rhs.sequence)
    }
}

/// What the accepted entries of one sync item say: it is deleted (a tombstone is final), or its winning version.
enum ItemResolution {
    case dead
    case live(winner: SyncDatabase.StoredEntry)

    static func resolve(_ entries: [SyncDatabase.StoredEntry]) -> ItemResolution? {
        guard !entries.isEmpty else { return nil }
        if entries.contains(where: { $0.kind == .tombstone }) { return .dead }
        let versions = entries.filter { $0.kind == .item }
        guard
            let winner = versions.max(by: {
                VersionKey(clock: $0.clock, author: $0.author, sequence: $0.sequence)
                    < VersionKey(clock: $1.clock, author: $1.author, sequence: $1.sequence)
            })
        else { return nil }
        return .live(winner: winner)
    }
}
