import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

/// keychaind killed again and again under writers, readers and a subscriber: run by `make soak` (KEYCHAIN_SOAK=1).
@Suite(
    "Soak: keychaind SIGKILLed over and over under load",
    .enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_SOAK"] != nil), .timeLimit(.minutes(10)))
struct DaemonSoakTests {
    @Test("100 kills: no acknowledged write is lost, the keychain verifies, and clients always come back")
    func killLoop() throws {
        let daemon = try DaemonProcess()
        let acknowledged = Mutex<Set<String>>([])
        let removed = Mutex<Set<String>>([])
        // A delete whose reply was lost to a kill may or may not have been carried out.
        let attemptedRemovals = Mutex<Set<String>>([])
        let stop = Mutex(false)
        let clients = DispatchGroup()
        for worker in 0..<6 {
            DispatchQueue.global().async(group: clients) {
                let client = DaemonClient(socketPath: daemon.socketPath)
                var index = 0
                while !stop.withLock({ $0 }) {
                    let account = "k\(worker)-\(index)"
                    if (try? client.addPassword(account, "v\(index)")) != nil {
                        acknowledged.withLock { _ = $0.insert(account) }
                    }
                    // Every fifth one is deleted again: a delete acknowledged must stay deleted.
                    if index % 5 == 0 { attemptedRemovals.withLock { _ = $0.insert(account) } }
                    if index % 5 == 0,
                        (try? client.delete(
                            ItemQuery(itemClass: .genericPassword, attributes: genp(account)), for: app)) != nil
                    {
                        removed.withLock { _ = $0.insert(account) }
                    }
                    index += 1
                }
            }
        }
        for _ in 0..<100 {
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.15))
            daemon.kill()
            try daemon.restart()
        }
        stop.withLock { $0 = true }
        clients.wait()
        let client = DaemonClient(socketPath: daemon.socketPath)
        let stored = Set(
            try client.copyMatching(
                ItemQuery(itemClass: .genericPassword, limit: .all, returning: .attributes), for: app
            ).compactMap { $0.attributes.string(.account) })
        let kept = acknowledged.withLock { $0 }.subtracting(attemptedRemovals.withLock { $0 })
        #expect(kept.count > 100)
        let lost = kept.subtracting(stored)
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.sorted().prefix(20))")
        #expect(removed.withLock { $0 }.isDisjoint(with: stored))
        #expect(try client.verify().problems.isEmpty)
    }
}
