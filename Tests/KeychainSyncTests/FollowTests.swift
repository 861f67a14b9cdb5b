import Foundation
import KeychainCore
import KeychainSync
import Synchronization
import TestSupport
import Testing

/// Following (the store's watch and the change feed) and a locked keychain.
@Suite("Sync following and lock state")
struct FollowTests {
    @Test(
        "a follower syncs on its own when another device writes and when its keychain changes",
        arguments: [StoreFactory.memory, .folder])
    func follower(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try b.view.deliverAll()
        let failures = Mutex<[String]>([])
        let follower = try b.sync.follow(interval: 0.2) { result in
            if case .failure(let error) = result { failures.withLock { $0.append(error.message) } }
        }
        defer { follower.cancel() }
        try a.add(account: "pushed", service: "svc", secret: "arrives")
        try a.sync.syncOnce()
        #expect(
            try waitUntil {
                try b.view.deliverAll(); return try b.secret(account: "pushed", service: "svc") == "arrives"
            })
        // A change in B's keychain is sent without a call.
        try b.update(account: "pushed", service: "svc", secret: "sent back")
        #expect(
            try waitUntil {
                try a.view.deliverAll(); try a.sync.syncOnce();
                return try a.secret(account: "pushed", service: "svc") == "sent back"
            })
        follower.cancel()
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test("a locked keychain defers its when-unlocked items and catches up after unlocking")
    func lockedKeychain() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try b.engine.setPasscode("1234", current: nil)
        b.engine.lock()
        try a.add(account: "unlocked only", service: "svc", secret: "ak")
        try a.add(account: "after first unlock", service: "svc", secret: "ck", accessible: .afterFirstUnlock)
        try a.sync.syncOnce()
        try b.view.deliverAll()
        let report = try b.sync.syncOnce()
        #expect(!report.problems.isEmpty)
        try b.engine.unlock(passcode: "1234")
        try circle.syncAll()
        #expect(try b.secret(account: "unlocked only", service: "svc") == "ak")
        #expect(try b.secret(account: "after first unlock", service: "svc") == "ck")
        try circle.expectConverged()
    }

    /// Polls `condition` every 50 ms for up to 20 s (a bound for a stuck follower, not a speed requirement).
    private func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<400 {
            if try condition() { return true }
            usleep(50_000)
        }
        return false
    }
}
