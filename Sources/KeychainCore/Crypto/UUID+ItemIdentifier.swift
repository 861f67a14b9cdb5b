import Foundation
import Synchronization

extension UUID {
    /// A new item's UUID (RFC 9562 version 8): a 48-bit counter, then 74 random bits from libsodium's generator.
    ///
    /// The counter starts at a random value in each process and grows by one with each item, so the items a process
    /// adds sort together, in the order it added them: their entries in the UUID indexes (the items' and the change
    /// log's) go to the same few pages instead of one random page each, which a group commit or a batch then writes
    /// once (issue 23). It says no more than the row ids already say (the order of insertion), and nothing of the
    /// time; the random part keeps two UUIDs apart, and unguessable, as a version 4 UUID's would. One `getrandom`
    /// call, where Foundation's `UUID()` opens, reads and closes `/dev/urandom` on Linux.
    package static func itemIdentifier() throws(EngineError) -> UUID {
        var bytes = try RandomBytes.make(count: 16)
        let count = itemCounter.wrappingAdd(1, ordering: .relaxed).oldValue
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: count >> (40 - 8 * UInt64(index))) }
        bytes[6] = bytes[6] & 0x0F | 0x80  // version 8
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// The next item UUID's counter: a random start, so that processes do not share their range.
private let itemCounter = Atomic<UInt64>(UInt64.random(in: 0..<(1 << 48)))
