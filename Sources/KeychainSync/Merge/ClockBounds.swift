/// Which item versions are dated too far ahead to win (issue 21, item 7): a version whose clock is beyond a
/// reader's time plus ``HybridLogicalClock/maximumDrift`` loses to every version within it, on every device.
///
/// "A reader's time" must be the same on every device, or they would not converge: it is read from the circle's
/// own signed records. A member that reads a version writes an acknowledgment (``LogEntry/cursors``) whose clock is
/// the time it read it at; its first acknowledgment that covers the version is its verdict, the same for everyone.
/// A version is out of bounds when at least one member other than its author has judged it, and every member that
/// has judged it found it beyond that member's time plus the drift: one device whose clock is a week slow cannot
/// push everyone else's versions down, as long as another member has read them. Until this device has written its
/// own acknowledgment covering a version, its verdict is its time now (the larger of its hybrid clock and its wall
/// clock), and a version it finds too far ahead makes it write that acknowledgment in the same pass.
struct ClockBounds {
    /// An acknowledgment as a verdict: when it was written, and how far it had read each log.
    struct Reading {
        var clock: HybridTime
        var cursors: [String: Int64]
    }

    /// How a version stands.
    enum Verdict: Equatable {
        /// Within the drift of every member that has read it (or of this device, now).
        case within
        /// Beyond it: `witnessed` when a member's written acknowledgment says so, not only this device's clock.
        case ahead(witnessed: Bool)
    }

    /// Each member's acknowledgments (accepted ones only), in log order.
    var readings: [String: [Reading]]
    /// This device's id.
    var device: String
    /// This device's time now, in milliseconds (its verdict for what it has not acknowledged yet).
    var now: Int64

    /// The verdict on the version by `author` at `sequence`, dated `clock`.
    func verdict(author: String, sequence: Int64, clock: HybridTime) -> Verdict {
        var witnessed = false
        var judgedHere = false
        for (member, readings) in readings where member != author {
            guard let first = readings.first(where: { ($0.cursors[author] ?? 0) >= sequence }) else { continue }
            guard Self.isBeyond(clock, first.clock.milliseconds) else { return .within }
            witnessed = true
            if member == device { judgedHere = true }
        }
        if author != device, !judgedHere {
            guard Self.isBeyond(clock, now) else { return .within }
            return .ahead(witnessed: witnessed)
        }
        return witnessed ? .ahead(witnessed: true) : .within
    }

    /// Whether the version by `author` at `sequence` is out of bounds.
    func isAhead(author: String, sequence: Int64, clock: HybridTime) -> Bool {
        verdict(author: author, sequence: sequence, clock: clock) != .within
    }

    /// Whether this device finds the version by `author` at `sequence` too far ahead and has written no
    /// acknowledgment covering it yet.
    func awaitsVerdictHere(author: String, sequence: Int64, clock: HybridTime) -> Bool {
        guard author != device, Self.isBeyond(clock, now) else { return false }
        return !(readings[device] ?? []).contains { ($0.cursors[author] ?? 0) >= sequence }
    }

    private static func isBeyond(_ clock: HybridTime, _ milliseconds: Int64) -> Bool {
        clock.milliseconds > milliseconds &+ HybridLogicalClock.maximumDrift
    }
}
