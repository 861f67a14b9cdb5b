import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Concurrent writes resolve the same way on every device, by the hybrid clock and the device id, and the losers
/// stay readable as history.
@Suite("Sync conflicts")
struct ConflictTests {
    @Test("concurrent edits of one item converge to one winner, the loser in history", arguments: StoreFactory.all)
    func concurrentEdits(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try a.add(account: "shared", service: "svc", secret: "base")
        try circle.syncAll()
        // A and B edit without seeing each other's edit.
        try a.update(account: "shared", service: "svc", secret: "from a")
        try b.update(account: "shared", service: "svc", secret: "from b")
        try a.sync.syncOnce()
        try b.sync.syncOnce()
        try circle.syncAll(rounds: 2)
        try circle.expectConverged()
        let winner = try #require(try c.secret(account: "shared", service: "svc"))
        #expect(["from a", "from b"].contains(winner))
        let loser = winner == "from a" ? "from b" : "from a"
        for device in circle.devices {
            let item = try #require(try device.synchronizableItems().first)
            _ = item
            let reference = try device.reference(account: "shared")
            let history = try device.sync.history(for: reference)
            #expect(history.contains { String(decoding: $0.data, as: UTF8.self) == loser }, "\(history)")
            #expect(!history.contains { String(decoding: $0.data, as: UTF8.self) == winner })
        }
    }

    @Test("the same primary key made on two devices keeps the lower UUID everywhere", arguments: StoreFactory.all)
    func samePrimaryKey(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        let first = try a.add(account: "dup", service: "svc", secret: "made on a")
        let second = try b.add(account: "dup", service: "svc", secret: "made on b")
        try a.sync.syncOnce()
        try b.sync.syncOnce()
        try circle.syncAll(rounds: 2)
        try circle.expectConverged()
        let lower = first.persistentReference.uuid.uuidString < second.persistentReference.uuid.uuidString
        let expected = lower ? "made on a" : "made on b"
        #expect(try a.secret(account: "dup", service: "svc") == expected)
        #expect(try b.secret(account: "dup", service: "svc") == expected)
        #expect(try a.synchronizableItems().count == 1)
        let history = try b.sync.history(for: try b.reference(account: "dup"))
        #expect(history.contains { String(decoding: $0.data, as: UTF8.self) != expected })
    }

    /// Found by review: primary keys compared with separators alone made these two keys equal, and the lower-UUID
    /// rule hid one of the items on every device.
    @Test("two primary keys that differ only where a separator would fall are two items everywhere")
    func primaryKeysDoNotCollide() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        _ = try a.add(account: "a\u{0}b", service: "c", secret: "first")
        _ = try b.add(account: "a", service: "b\u{0}c", secret: "second")
        try circle.syncAll(rounds: 2)
        try circle.expectConverged()
        #expect(try a.synchronizableItems().count == 2)
        #expect(try b.secret(account: "a\u{0}b", service: "c") == "first")
        #expect(try a.secret(account: "a", service: "b\u{0}c") == "second")
    }

    @Test("a clock a day fast does not win over an edit made after its version was seen", arguments: StoreFactory.all)
    func skewedClock(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b) = (circle.devices[0], circle.devices[1])
        a.clock.set(offset: 86_400)
        try a.add(account: "skew", service: "svc", secret: "from the future")
        try circle.syncAll()
        #expect(try b.secret(account: "skew", service: "svc") == "from the future")
        // B's wall clock is a day behind A's version; its edit still comes after it.
        try b.update(account: "skew", service: "svc", secret: "later edit")
        try circle.syncAll()
        for device in circle.devices { #expect(try device.secret(account: "skew", service: "svc") == "later edit") }
        // And one a day slow as well.
        circle.devices[2].clock.set(offset: -86_400)
        try circle.devices[2].update(account: "skew", service: "svc", secret: "from the past")
        try circle.syncAll()
        for device in circle.devices { #expect(try device.secret(account: "skew", service: "svc") == "from the past") }
        try circle.expectConverged()
    }

    @Test("an edit and a delete made concurrently: the delete wins everywhere")
    func editAgainstDelete() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "gone", service: "svc", secret: "v1")
        try circle.syncAll()
        try a.delete(account: "gone", service: "svc")
        try b.update(account: "gone", service: "svc", secret: "v2")
        try b.sync.syncOnce()
        try a.sync.syncOnce()
        try circle.syncAll()
        #expect(try a.secret(account: "gone", service: "svc") == nil)
        #expect(try b.secret(account: "gone", service: "svc") == nil)
        try circle.expectConverged()
    }
}

/// A local write that lands in the middle of a pass is not overwritten by what the pass applies.
@Suite("Sync mid-pass edits")
struct MidPassEditTests {
    /// Device B of `circle` (whose first device approves it), on an engine behind an interposed backend, reading
    /// the store through a view that delivers when told.
    private func interposedDevice(
        joining circle: TestCircle
    ) throws -> (SyncDevice, Engine, InterposedBackend, DelayedView) {
        let directory = circle.temporary.url.appendingPathComponent("interposed", isDirectory: true)
        let engine = try Engine(storage: .directory(directory), options: EngineOptions(passcodeCost: .minimum))
        let backend = InterposedBackend(engine)
        let view = DelayedView(circle.store)
        try view.deliverAll()
        let b = try SyncDevice.join(
            directory: directory, backend: backend, store: view, storeURL: circle.url, name: "b")
        try pair(b, view, with: circle.devices[0].sync, circle.devices[0].view)
        return (b, engine, backend, view)
    }

    @Test("an edit made between a pass's sending and applying survives, and wins as the newer version")
    func editDuringPass() throws {
        let circle = try TestCircle(.memory, devices: 1)
        let a = circle.devices[0]
        let (b, engine, backend, view) = try interposedDevice(joining: circle)
        try a.add(account: "busy", service: "svc", secret: "v1")
        try a.sync.syncOnce()
        try view.deliverAll()
        try b.syncOnce()
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("busy")], synchronizable: .synchronizableOnly)
        let secret: () throws -> String? = {
            var read = query
            read.returning = [.data]
            return try engine.copyMatching(read, for: TestDevice.caller).first?.data.map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        #expect(try secret() == "v1")
        // B's own write of v1 is in its feed: read it now, so the next pass's feed read finds nothing new.
        try b.syncOnce()

        try a.update(account: "busy", service: "svc", secret: "from a")
        try a.sync.syncOnce()
        try view.deliverAll()
        backend.afterNextFeedRead {
            _ = try? engine.update(
                query, with: ItemChanges(data: Data("edited during the pass".utf8)), for: TestDevice.caller)
        }
        let versionsBefore = try b.state.entries(kinds: [.item]).filter { $0.author == b.deviceID }.count
        let report = try b.syncOnce()
        // No version is sent (only the acknowledgment of what the pass read), and the edit waits.
        #expect(try b.state.entries(kinds: [.item]).filter { $0.author == b.deviceID }.count == versionsBefore)
        #expect(report.problems.count == 1, "\(report)")
        #expect(try secret() == "edited during the pass")
        try b.syncOnce()
        try a.view.deliverAll()
        try a.sync.syncOnce()
        #expect(try a.secret(account: "busy", service: "svc") == "edited during the pass")
        #expect(try secret() == "edited during the pass")
    }

    @Test(
        "an edit made right after a pass applied the item, before it reads it back, is sent by the next pass",
        arguments: [false, true])
    func editRightAfterApply(update: Bool) throws {
        let circle = try TestCircle(.memory, devices: 1)
        let a = circle.devices[0]
        let (b, engine, backend, view) = try interposedDevice(joining: circle)
        try a.add(account: "fresh", service: "svc", secret: "v1")
        try a.sync.syncOnce()
        try view.deliverAll()
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("fresh")], synchronizable: .synchronizableOnly)
        let edit: @Sendable () -> Void = {
            _ = try? engine.update(query, with: ItemChanges(data: Data("edited at once".utf8)), for: TestDevice.caller)
        }
        if update {
            // B holds v1 already; the pass that applies A's v2 (an update of the local item) is the one interposed.
            try b.syncOnce()
            try b.syncOnce()
            try a.update(account: "fresh", service: "svc", secret: "v2")
            try a.sync.syncOnce()
            try view.deliverAll()
        }
        backend.afterNextWrite(edit)
        try b.syncOnce()
        try b.syncOnce()
        try a.view.deliverAll()
        try a.sync.syncOnce()
        #expect(try a.secret(account: "fresh", service: "svc") == "edited at once")
    }

    @Test(
        "a pass that fails after publishing its own entries loses its record of them, and gets it back from the store")
    func passFailingAfterPublishing() throws {
        let circle = try TestCircle(.memory, devices: 1)
        let a = circle.devices[0]
        let (b, engine, backend, view) = try interposedDevice(joining: circle)
        try a.add(account: "doomed", service: "svc", secret: "d")
        try a.sync.syncOnce()
        try view.deliverAll()
        try b.syncOnce()
        try a.view.deliverAll()
        try a.sync.syncOnce()
        // B makes three items; A deletes one B holds. B's next pass publishes its three versions, then fails applying
        // A's tombstone (the disk fails the delete): the whole pass's sync state rolls back.
        for index in 0..<3 {
            try engine.add(
                NewItem(
                    itemClass: .genericPassword,
                    attributes: [
                        .account: .string("b\(index)"), .service: .string("svc"), .synchronizable: .bool(true),
                    ], data: Data("b\(index)".utf8)), for: TestDevice.caller)
        }
        try a.delete(account: "doomed", service: "svc")
        try a.sync.syncOnce()
        try view.deliverAll()
        backend.failNextDelete()
        #expect(throws: SyncError.self) { try b.syncOnce() }
        #expect(try circle.store.list(prefix: "devices/").count > 0)
        for _ in 0..<3 {
            try view.deliverAll()
            try b.syncOnce()
            try a.view.deliverAll()
            try a.sync.syncOnce()
        }
        // Each of B's items once on A, the tombstone applied on B, and nothing more to send.
        let onA = try a.synchronizableItems()
        #expect(onA.count == 3, "\(onA)")
        for index in 0..<3 { #expect(try a.secret(account: "b\(index)", service: "svc") == "b\(index)") }
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("doomed")], synchronizable: .any)
        #expect(throws: EngineError.self) { try engine.copyMatching(query, for: TestDevice.caller) }
        try view.deliverAll()
        let quiet = try b.syncOnce()
        #expect(quiet.sent == 0 && quiet.applied == 0, "\(quiet)")
    }
}
