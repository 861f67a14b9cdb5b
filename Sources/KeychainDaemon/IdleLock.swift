import Foundation
import KeychainCore
import Synchronization

/// Locks a user's keychain after `interval` without a request for it (`--idle-lock`), as a phone locks itself:
/// class A and B keys are wiped then. A thread wakes once a second to check.
package final class IdleLock: Sendable {
    private let interval: TimeInterval?
    private final class LastRequests: Sendable {
        let times = ParkingMutex<[UInt32: Date]>([:])
    }
    private let lastRequest = LastRequests()

    /// No idle lock when `interval` is `nil`.
    package init(interval: TimeInterval?, keychains: UserKeychains) {
        self.interval = interval
        guard let interval else { return }
        let thread = Thread { [lastRequest] in
            while true {
                Thread.sleep(forTimeInterval: min(1, interval / 2))
                let now = Date()
                let idle = lastRequest.times.withLock { last in
                    let idle = last.filter { now.timeIntervalSince($0.value) >= interval }.map(\.key)
                    for uid in idle { last[uid] = nil }
                    return idle
                }
                for uid in idle {
                    guard let engine = keychains.open[uid] else { continue }
                    engine.lock()
                    log("locked the keychain of uid \(uid) after \(Int(interval)) s without a request")
                }
            }
        }
        thread.name = "keychaind idle lock"
        thread.start()
    }

    /// Notes a request for `uid`'s keychain.
    func touch(_ uid: UInt32) {
        guard interval != nil else { return }
        lastRequest.times.withLock { $0[uid] = Date() }
    }
}
