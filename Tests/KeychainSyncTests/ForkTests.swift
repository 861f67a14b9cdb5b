import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 21, item 5: a store that shows members different histories of one log (a fork), or withholds entries from
/// one of them, no longer goes unnoticed: each member's acknowledgment names the hash of every log's head it read,
/// and `sync-status` shows where members disagree and what another member has read that this one has not.
@Suite("Sync: forks and withholding are seen")
struct ForkTests {
    @Test("two members shown different entries at one place of a log each report the disagreement")
    func forkIsSeen() throws {
        let circle = try TestCircle(.memory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try circle.syncAll()
        let idC = c.sync.deviceID
        let (sequence, clock, body) = try c.versionForgery(account: "fork")
        // A reads one body; then the store swaps it, and B reads the other. Neither can tell alone.
        try c.forgeEntry(.item, sequence: sequence, clock: clock, in: circle.store, body("for a"))
        try a.view.deliverAll()
        try a.sync.syncOnce()
        try circle.store.delete(RecordName.log(idC, sequence))
        try c.forgeEntry(.item, sequence: sequence, clock: clock, in: circle.store, body("for b"))
        try b.view.deliverAll()
        try b.sync.syncOnce()
        try circle.syncAll(rounds: 2, except: [c])
        for device in [a, b] {
            let disagreements = try device.sync.status().disagreements
            #expect(disagreements.contains { $0.author == idC && $0.sequence == sequence }, "\(disagreements)")
        }
    }

    @Test("entries a store withholds from one member show as unseen there", arguments: StoreFactory.all)
    func withholdingIsSeen(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try circle.syncAll()
        let idA = a.sync.deviceID
        let before = try circle.store.list(prefix: "devices/\(idA)/log/")
        try a.add(account: "hidden", service: "svc", secret: "s")
        try a.sync.syncOnce()
        let hidden = try circle.store.list(prefix: "devices/\(idA)/log/").filter { !before.contains($0) }
        #expect(!hidden.isEmpty)
        // B reads everything but A's new entries; A's log says, in a later acknowledgment A writes after reading
        // B, how far A's own log goes.
        try b.view.deliverAll()
        b.view.withhold(hidden)
        try b.add(account: "from b", service: "svc", secret: "t")
        try b.sync.syncOnce()
        try a.view.deliverAll()
        try a.sync.syncOnce()
        let acknowledgments = try circle.store.list(prefix: "devices/\(idA)/log/").filter {
            !before.contains($0) && !hidden.contains($0)
        }
        b.view.deliver(acknowledgments)
        try b.sync.syncOnce()
        let unseen = try b.sync.status().unseen
        #expect((unseen[idA] ?? 0) > 0, "\(unseen)")
    }
}
