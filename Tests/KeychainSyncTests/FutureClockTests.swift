import Foundation
import KeychainCore
import KeychainSync
import TestSupport
import Testing

/// A clock far ahead (issue 21, item 7): a device whose wall clock is eight days fast, beyond the week of drift a
/// receiver's hybrid clock adopts, used to win every conflict for a week, over edits made after its version was
/// seen. Its versions now lose to every version within the drift, on every device, its own included.
@Suite("Sync with a clock far ahead")
struct FutureClockTests {
    static let eightDays: TimeInterval = 8 * 86_400

    @Test(
        "a version dated eight days ahead loses to every version within the drift, and devices converge",
        arguments: StoreFactory.all)
    func farAheadLoses(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "drift", service: "svc", secret: "base")
        try circle.syncAll()
        b.clock.set(offset: Self.eightDays)
        try b.update(account: "drift", service: "svc", secret: "from eight days ahead")
        try circle.syncAll(rounds: 3)
        for device in circle.devices {
            #expect(try device.secret(account: "drift", service: "svc") == "base", "\(device.sync.deviceID)")
        }
        try a.update(account: "drift", service: "svc", secret: "later edit")
        try circle.syncAll(rounds: 3)
        for device in circle.devices {
            #expect(try device.secret(account: "drift", service: "svc") == "later edit")
        }
        try circle.expectConverged()
    }

    @Test("a device a week slow does not push down the versions the others have read within their time")
    func slowWitnessOutvoted() throws {
        let circle = try TestCircle(.memory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try a.add(account: "slow", service: "svc", secret: "base")
        try circle.syncAll()
        c.clock.set(offset: -Self.eightDays)
        try a.update(account: "slow", service: "svc", secret: "edit on a good clock")
        try circle.syncAll(rounds: 3)
        for device in [a, b] {
            #expect(try device.secret(account: "slow", service: "svc") == "edit on a good clock")
        }
        try circle.expectConverged()
    }

    @Test("a clock a day ahead, within the drift, still wins as before")
    func withinDriftWins() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "near", service: "svc", secret: "base")
        try circle.syncAll()
        b.clock.set(offset: 86_400)
        try b.update(account: "near", service: "svc", secret: "a day ahead")
        try a.update(account: "near", service: "svc", secret: "concurrent")
        try circle.syncAll(rounds: 3)
        for device in circle.devices {
            #expect(try device.secret(account: "near", service: "svc") == "a day ahead")
        }
    }
}
