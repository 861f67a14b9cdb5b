import Foundation

/// Which exclusions stand (``TrustState``), by sequence cuts alone.
///
/// A candidate is an exclusion by an admitted device, of another admitted device, before any refusal of its author
/// (a pin that does not match the subject's entry kept here refuses the subject: it signed two histories). Two
/// candidates that exclude each other's authors, each written above the other's cut (neither author had read the
/// other's exclusion, or one claims it had not), are decided by witnesses: the other devices' acknowledgments, which
/// show which of the two each read first; the one read first by more witnesses stands and the other is void; a tie
/// (no witness yet, or one pass read both) leaves both standing. Then, until nothing changes, an exclusion whose
/// author is cut below it by a standing exclusion is void.
struct ExclusionResolver {
    var candidates: [LogEntry]
    var admitted: [String: PublicIdentity]
    var evidence: TrustEvidence

    /// The exclusions that stand.
    func standing() -> [LogEntry] {
        var valid = candidates.filter(isCandidate)
        // One exclusion of a subject per author counts (the lowest cut): a second one changes nothing.
        valid.sort { ($0.author, $0.sequence) < ($1.author, $1.sequence) }
        var partners: [Int: Set<Int>] = [:]
        var voided: Set<Int> = []
        for (index, exclusion) in valid.enumerated() {
            for (otherIndex, other) in valid.enumerated() where otherIndex > index {
                guard other.author == exclusion.subject, other.subject == exclusion.author,
                    let cutOnOther = exclusion.acceptedThrough, let cutOnThis = other.acceptedThrough,
                    other.sequence > cutOnOther, exclusion.sequence > cutOnThis
                else { continue }
                partners[index, default: []].insert(otherIndex)
                partners[otherIndex, default: []].insert(index)
                switch witnessVotes(exclusion, other) {
                case (let first, let second) where first > second: voided.insert(otherIndex)
                case (let first, let second) where second > first: voided.insert(index)
                default: break
                }
            }
        }
        var standing = Set(valid.indices).subtracting(voided)
        for _ in 0..<valid.count + 1 {
            // Void: written above a cut on its author by a standing exclusion other than its own partner (a pair the
            // witnesses left standing together is not voided by its own cuts).
            let void = standing.filter { index in
                standing.contains { other in
                    other != index && !(partners[index]?.contains(other) ?? false)
                        && valid[other].subject == valid[index].author
                        && (valid[other].acceptedThrough.map { valid[index].sequence > $0 } ?? false)
                }
            }
            if void.isEmpty { break }
            standing.subtract(void)
        }
        return standing.sorted().map { valid[$0] }
    }

    /// Whether `entry` may count at all: by an admitted device not refused there, of another admitted device.
    private func isCandidate(_ entry: LogEntry) -> Bool {
        guard admitted[entry.author] != nil, let subject = entry.subject, subject != entry.author,
            admitted[subject] != nil, let through = entry.acceptedThrough, through >= 0
        else { return false }
        if let from = evidence.refused[entry.author], entry.sequence >= from { return false }
        return true
    }

    /// How many witnesses (devices other than the two authors) read `first` before `second`, and the reverse.
    private func witnessVotes(_ first: LogEntry, _ second: LogEntry) -> (Int, Int) {
        var votes = (0, 0)
        for witness in admitted.keys where witness != first.author && witness != second.author {
            if let refusedFrom = evidence.refused[witness], refusedFrom <= 1 { continue }
            let readFirst = evidence.firstReading(by: witness, of: first.author, through: first.sequence)
            let readSecond = evidence.firstReading(by: witness, of: second.author, through: second.sequence)
            switch (readFirst, readSecond) {
            case (let a?, let b?) where a < b: votes.0 += 1
            case (let a?, let b?) where b < a: votes.1 += 1
            case (_?, nil): votes.0 += 1
            case (nil, _?): votes.1 += 1
            default: break
            }
        }
        return votes
    }
}
