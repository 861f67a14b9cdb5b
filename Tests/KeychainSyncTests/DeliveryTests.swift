import Foundation
import KeychainCore
import KeychainSync
import TestSupport
import Testing

/// A store that delivers late, out of order, twice, or not at all for a while changes nothing in the outcome.
@Suite("Sync delivery")
struct DeliveryTests {
    @Test(
        "records delivered in reverse order, one at a time: the newest shows at once, and the older never win",
        arguments: StoreFactory.all)
    func reorderedDelivery(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "r", service: "svc", secret: "0")
        for step in 1...4 {
            try a.update(account: "r", service: "svc", secret: "\(step)")
            try a.sync.syncOnce()
        }
        let late = try b.view.undelivered()
        #expect(late.count >= 4)
        for name in late.reversed() {
            b.view.deliver([name])
            try b.sync.syncOnce()
            // The newest version came first; no older one delivered after it wins.
            #expect(try b.secret(account: "r", service: "svc") == "4")
        }
        #expect(try b.secret(account: "r", service: "svc") == "4")
        try circle.expectConverged()
    }

    @Test("a store that lists every record twice changes nothing", arguments: StoreFactory.all)
    func duplicatedDelivery(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3, duplicatesListings: true)
        try circle.devices[0].add(account: "d", service: "svc", secret: "once")
        try circle.syncAll()
        try circle.devices[1].update(account: "d", service: "svc", secret: "twice")
        try circle.syncAll()
        for device in circle.devices { #expect(try device.secret(account: "d", service: "svc") == "twice") }
        let quiet = try circle.syncAll()
        #expect(quiet.allSatisfy { $0.received == 0 && $0.sent == 0 })
        try circle.expectConverged()
    }

    @Test("a partition that heals: both sides' writes meet, and conflicts resolve alike", arguments: StoreFactory.all)
    func partitionHeals(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try a.add(account: "both", service: "svc", secret: "base")
        try circle.syncAll()
        // A is cut off: it syncs with what it sees (only its own writes), B and C see each other but not A.
        try a.add(account: "only-a", service: "svc", secret: "a")
        try a.update(account: "both", service: "svc", secret: "a's edit")
        try a.sync.syncOnce()
        let aRecords = Set(try a.view.list(prefix: "devices/\(a.sync.deviceID)/"))
        try b.add(account: "only-b", service: "svc", secret: "b")
        try b.sync.syncOnce()
        try c.update(account: "both", service: "svc", secret: "c's edit")
        for device in [b, c] {
            let others = try device.view.undelivered().filter { !aRecords.contains($0) }
            device.view.deliver(others)
            try device.sync.syncOnce()
        }
        #expect(try b.secret(account: "only-a", service: "svc") == nil)
        #expect(try a.secret(account: "only-b", service: "svc") == nil)
        // Heal.
        try circle.syncAll(rounds: 2)
        for device in circle.devices {
            #expect(try device.secret(account: "only-a", service: "svc") == "a")
            #expect(try device.secret(account: "only-b", service: "svc") == "b")
        }
        try circle.expectConverged()
    }
}

/// A pass writes its sync state in one transaction: a pass that fails after it published entries loses what it
/// recorded of them, and must get it all back from the store, with nothing lost and nothing doubled.
@Suite("Sync passes that fail half-way")
struct FailedPassTests {
    @Test("a store outage after some of a pass's entries were published: the next passes converge, each item once")
    func outageMidPass() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        for index in 0..<5 { try a.add(account: "item\(index)", service: "svc", secret: "s\(index)") }
        // Three of the five versions go out; the fourth put and every later one (the acknowledgment too) fail.
        a.view.failPuts(after: 3)
        // The pass reports the outage as a problem (the versions not sent wait for the next pass).
        let report = try a.sync.syncOnce()
        #expect(!report.problems.isEmpty)
        a.view.failPuts(after: nil)
        try circle.syncAll(rounds: 3)
        try circle.expectConverged()
        let items = try b.synchronizableItems()
        #expect(items.count == 5, "each item once on the other device: \(items.count)")
        for index in 0..<5 { #expect(try b.secret(account: "item\(index)", service: "svc") == "s\(index)") }
        // Nothing is sent again once converged.
        let quiet = try circle.syncAll(rounds: 1)
        #expect(quiet.allSatisfy { $0.sent == 0 && $0.applied == 0 }, "\(quiet)")
    }
}
