import Foundation
import Testing

@testable import KeychainSync

/// The hybrid logical clock's rules, and what a record with a hostile or broken clock can do to them.
@Suite struct HybridClockTests {
    private let wall = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aTickIsAfterTheLastTimeAndAtLeastTheWall() {
        let last = HybridTime(milliseconds: 1_800_000_000_000 + 5_000, counter: 3)
        let next = HybridLogicalClock.tick(after: last, wall: wall)
        #expect(next > last)
        #expect(HybridLogicalClock.tick(after: HybridTime(rawValue: 0), wall: wall).milliseconds == 1_800_000_000_000)
    }

    @Test func aReceivedTimeADayAheadMovesTheClock() {
        let remote = HybridTime(milliseconds: 1_800_000_000_000 + 86_400_000, counter: 0)
        let received = HybridLogicalClock.receive(remote, after: HybridTime(rawValue: 0), wall: wall)
        #expect(received == remote)
        #expect(HybridLogicalClock.tick(after: received, wall: wall) > remote)
    }

    /// One store record with a clock at the end of the range once moved the clock there, and the next tick
    /// overflowed: every device (and keychaind) crashed at every start.
    @Test func aTimeFarAheadIsNotAdoptedAndTheEndOfTheRangeNeverTraps() {
        let hostile = HybridTime(rawValue: .max)
        let last = HybridTime(milliseconds: 1_800_000_000_000, counter: 1)
        let received = HybridLogicalClock.receive(hostile, after: last, wall: wall)
        #expect(received == last)
        #expect(HybridLogicalClock.tick(after: hostile, wall: wall) == hostile)
        #expect(HybridLogicalClock.tick(after: last, wall: .distantFuture) > last)
    }
}
