import Foundation

/// What a device knows besides the trust entries themselves, for ``TrustState``: the members' acknowledgments (who
/// read what first), and the authors it refused (for equivocation, or for a log an exclusion's pin contradicts).
struct TrustEvidence: Sendable {
    /// An acknowledgment: its place in its author's log and how far its author had read each log.
    struct Reading: Sendable {
        var sequence: Int64
        var cursors: [String: Int64]
    }

    /// Each device's acknowledgments, in log order.
    var readings: [String: [Reading]] = [:]
    /// Authors refused for equivocation: the sequence from which their logs count for nothing.
    var refused: [String: Int64] = [:]

    /// The sequence of `witness`'s first acknowledgment that covers `sequence` of `author`'s log, if any.
    func firstReading(by witness: String, of author: String, through sequence: Int64) -> Int64? {
        readings[witness]?.first { ($0.cursors[author] ?? 0) >= sequence }?.sequence
    }
}
