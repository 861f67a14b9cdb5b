import Foundation

extension SyncDevice {
    /// The circle's verdicts on clocks too far ahead (``ClockBounds``), from every accepted acknowledgment kept.
    func clockBounds(_ trust: TrustState) throws(SyncError) -> ClockBounds {
        var readings: [String: [(Int64, ClockBounds.Reading)]] = [:]
        for entry in try decoded(.acknowledgment) where trust.accepts(author: entry.author, sequence: entry.sequence) {
            readings[entry.author, default: []].append(
                (entry.sequence, ClockBounds.Reading(clock: entry.clock, cursors: entry.cursors ?? [:])))
        }
        return ClockBounds(
            readings: readings.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }, device: deviceID,
            now: max(clock.milliseconds, HybridLogicalClock.milliseconds(of: options.now())))
    }

    /// Whether this device has read a version by another member that it finds too far ahead and that no
    /// acknowledgment of its own covers yet: its next acknowledgment is then due, and is its verdict for everyone
    /// (written later, at a later time, it could say the opposite).
    func owesClockVerdict(_ trust: TrustState, bounds: ClockBounds) throws(SyncError) -> Bool {
        let threshold = HybridTime(milliseconds: bounds.now &+ HybridLogicalClock.maximumDrift, counter: 0xFFFF)
        let ahead = try state.entries(kinds: [.item], clockAbove: threshold)
        guard !ahead.isEmpty else { return false }
        let cursors = try readCursors()
        return ahead.contains { entry in
            trust.accepts(author: entry.author, sequence: entry.sequence)
                && entry.sequence <= (cursors[entry.author] ?? 0)
                && bounds.awaitsVerdictHere(author: entry.author, sequence: entry.sequence, clock: entry.clock)
        }
    }
}
