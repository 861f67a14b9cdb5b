import Foundation

extension SyncDevice {
    /// What the other members' acknowledgments say that this device's own view does not (issue 21, item 5): the
    /// logs whose entry at some sequence has another hash for a member than here (the store showed them another
    /// history, or the log's author signed two), and the logs a member has read further than this device (the store
    /// delays or withholds their entries from it).
    func compareHeads(_ trust: TrustState) throws(SyncError) -> (
        disagreements: [SyncDisagreement], unseen: [String: Int64]
    ) {
        var latest: [String: LogEntry] = [:]
        for entry in try decoded(.acknowledgment)
        where entry.author != deviceID && trust.accepts(author: entry.author, sequence: entry.sequence)
            && entry.sequence > (latest[entry.author]?.sequence ?? 0)
        {
            latest[entry.author] = entry
        }
        let cursors = try readCursors()
        var disagreements: [SyncDisagreement] = []
        var unseen: [String: Int64] = [:]
        for (member, acknowledgment) in latest.sorted(by: { $0.key < $1.key }) {
            for (author, cursor) in (acknowledgment.cursors ?? [:]).sorted(by: { $0.key < $1.key }) where cursor > 0 {
                if cursor > (cursors[author] ?? 0) {
                    unseen[author] = max(unseen[author] ?? 0, cursor)
                    continue
                }
                guard let theirs = acknowledgment.heads?[author], let ours = try state.link(of: author, at: cursor)
                else { continue }
                if ours.hash != theirs {
                    disagreements.append(SyncDisagreement(member: member, author: author, sequence: cursor))
                }
            }
        }
        return (disagreements, unseen)
    }
}
