import Foundation
import KeychainCore
import KeychainWire
import Synchronization

/// The most items and bytes one user's keychain may take (`--max-items-per-user`, `--max-bytes-per-user`): a write
/// that would pass either is refused with errSecAllocate naming the limit and the option, and changes nothing.
/// Deletes are always allowed, and make room again.
///
/// Counting a keychain's items and pages takes a query over all of it, so each user's usage is kept as an upper
/// estimate instead: measured when first needed, raised by every write admitted (by the request's size, more than
/// it stores), and measured again whenever the estimate says a write would not fit. A user far from the limits
/// costs nothing; one at the limits is measured at every write, on their own keychain, under a lock of their own.
package final class UserQuotas: Sendable {
    private let options: DaemonOptions

    /// One user's estimate, and the lock their admissions take in turn.
    private final class Estimate: Sendable {
        let usage = ParkingMutex<StorageUsage?>(nil)
    }

    private let estimates = Mutex<[UInt32: Estimate]>([:])
    /// What a stored item takes beyond its request's bytes (row, indexes, seals), at most.
    private static let overheadPerItem = 1024

    package init(options: DaemonOptions) {
        self.options = options
    }

    /// Admits `request` (`size` bytes on the wire) to `uid`'s keychain (opened from `keychains` if it must be
    /// measured), or throws errSecAllocate naming the limit it would pass. A request that writes nothing new is
    /// always admitted.
    package func admit(_ request: DaemonRequest, size: Int, uid: UInt32, in keychains: UserKeychains)
        throws(EngineError)
    {
        try admit(request, size: size, uid: uid) { () throws(EngineError) in
            try keychains.engine(for: uid).storageUsage()
        }
    }

    /// Admits `request` as above, measuring the keychain with `measure` when the estimate does not tell (inside a
    /// write session, whose lock the engine's own measure would wait for).
    func admit(
        _ request: DaemonRequest, size: Int, uid: UInt32, measuring measure: () throws(EngineError) -> StorageUsage
    ) throws(EngineError) {
        guard case .backend(let write) = request, let newItems = Self.newItems(of: write) else { return }
        let bytes = size + newItems * Self.overheadPerItem
        try estimate(of: uid).usage.withLock { (usage) throws(EngineError) in
            let known: StorageUsage
            if let usage, fits(usage, newItems, bytes) {
                known = usage
            } else {
                known = try measure()
            }
            for (kind, used, adding, most, option) in [
                ("items", known.items, newItems, options.itemsPerUser, "--max-items-per-user \(options.itemsPerUser)"),
                ("bytes", known.bytes, bytes, options.bytesPerUser, "--max-bytes-per-user \(options.bytesPerUserText)"),
            ] where used + adding > most {
                usage = known
                throw EngineError(
                    .allocate,
                    "the keychain of uid \(uid) holds \(used) \(kind); \(adding) more would pass the \(most) keychaind "
                        + "allows a user (\(option))")
            }
            usage = StorageUsage(items: known.items + newItems, bytes: known.bytes + bytes)
        }
    }

    /// Notes a request carried out for `uid`: after a delete, the estimate is measured again when next needed.
    func carriedOut(_ request: DaemonRequest, uid: UInt32) {
        guard case .backend(let write) = request, Self.deletes(write) else { return }
        estimate(of: uid).usage.withLock { $0 = nil }
    }

    /// How many items a write may add, or `nil` for a request that writes nothing new.
    private static func newItems(of request: BackendRequest) -> Int? {
        switch request {
        case .add, .addOrUpdate: 1
        case .addBatch(let items): items.count
        case .generateKey(let generation): generation.publicKey == nil ? 1 : 2
        case .update: 0
        case .writeEach(let writes), .writeAll(let writes): writes.reduce(0) { $0 + (newItems(of: $1) ?? 0) }
        default: nil
        }
    }

    /// Whether a write may delete items (the estimate is then measured again).
    private static func deletes(_ request: BackendRequest) -> Bool {
        switch request {
        case .delete: true
        case .writeEach(let writes), .writeAll(let writes): writes.contains(where: deletes)
        default: false
        }
    }

    private func fits(_ usage: StorageUsage, _ items: Int, _ bytes: Int) -> Bool {
        usage.items + items <= options.itemsPerUser && usage.bytes + bytes <= options.bytesPerUser
    }

    private func estimate(of uid: UInt32) -> Estimate {
        estimates.withLock { estimates in
            if let estimate = estimates[uid] { return estimate }
            let estimate = Estimate()
            estimates[uid] = estimate
            return estimate
        }
    }
}
