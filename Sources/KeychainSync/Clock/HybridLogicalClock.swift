import Foundation

/// A hybrid logical clock time: milliseconds of physical time in the high 48 bits, a counter in the low 16.
///
/// Versions are ordered by it, not by wall time: machines disagree about the time, and a clock a day fast must not
/// win over every later edit. Receiving a time moves the clock past it, so whatever a device writes after seeing a
/// version sorts after that version, whatever its own wall clock says (ties are broken by device id).
public struct HybridTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The packed value (physical milliseconds << 16 | counter).
    public var rawValue: Int64

    /// Wraps a packed value.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// The time at a physical millisecond and counter.
    init(milliseconds: Int64, counter: Int64) {
        rawValue = milliseconds << 16 | (counter & 0xFFFF)
    }

    /// The physical part, in milliseconds since 1970.
    public var milliseconds: Int64 { rawValue >> 16 }
    /// The logical counter.
    public var counter: Int64 { rawValue & 0xFFFF }

    /// The physical part as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// Orders by the packed value.
    public static func < (lhs: HybridTime, rhs: HybridTime) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `milliseconds.counter`.
    public var description: String { "\(milliseconds).\(counter)" }
}

/// The clock's rules (Kulkarni et al.'s hybrid logical clock), as pure functions of the last time and the wall.
enum HybridLogicalClock {
    /// The next time for a local event: after `last`, and at least the wall clock.
    static func tick(after last: HybridTime, wall: Date) -> HybridTime {
        let physical = milliseconds(of: wall)
        if physical > last.milliseconds { return HybridTime(milliseconds: physical, counter: 0) }
        return next(last)
    }

    /// How far ahead of this machine's wall clock a received time may be and still move the clock: a week, far
    /// more than clocks drift (a day off is a case the tests cover), far less than the range.
    static let maximumDrift: Int64 = 7 * 24 * 3600 * 1000

    /// The time after receiving `remote`: at least both, and the wall clock. A time further ahead than
    /// ``maximumDrift`` is not adopted: one record from a broken clock or a hostile store would otherwise push every
    /// later time to the end of the range (and the clock past it).
    static func receive(_ remote: HybridTime, after last: HybridTime, wall: Date) -> HybridTime {
        let physical = milliseconds(of: wall)
        let adoptable = remote.milliseconds <= physical &+ maximumDrift
        let newest = adoptable ? max(last, remote) : last
        if physical > newest.milliseconds { return HybridTime(milliseconds: physical, counter: 0) }
        return newest
    }

    /// The smallest time after `time` (the counter overflows into the physical part, keeping the order); at the end
    /// of the range it stays there rather than trap.
    private static func next(_ time: HybridTime) -> HybridTime {
        time.rawValue == .max ? time : HybridTime(rawValue: time.rawValue + 1)
    }

    /// `date` in milliseconds since 1970, within the clock's range.
    static func milliseconds(of date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite else { return 0 }
        return Int64(min(max(milliseconds, 0), Double(Int64.max >> 16)))
    }
}
