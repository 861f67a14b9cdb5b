import Foundation
import KeychainCore
import KeychainSync
import TestSupport
import Testing

/// Adds, updates and deletes reach every device of a circle; what must stay local does.
@Suite("Sync propagation")
struct PropagationTests {
    @Test("an add, an update and a delete reach every device", arguments: StoreFactory.all)
    func addUpdateDelete(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try a.add(account: "alice", service: "mail", secret: "first")
        try circle.syncAll()
        #expect(try b.secret(account: "alice", service: "mail") == "first")
        #expect(try c.secret(account: "alice", service: "mail") == "first")
        try circle.expectConverged()

        try c.update(account: "alice", service: "mail", secret: "second")
        try circle.syncAll()
        #expect(try a.secret(account: "alice", service: "mail") == "second")
        #expect(try b.secret(account: "alice", service: "mail") == "second")
        try circle.expectConverged()

        try b.delete(account: "alice", service: "mail")
        try circle.syncAll()
        #expect(try a.secret(account: "alice", service: "mail") == nil)
        #expect(try c.secret(account: "alice", service: "mail") == nil)
        try circle.expectConverged()
    }

    @Test("once converged, a pass sends and changes nothing (a device never echoes what it applied)")
    func noEcho() throws {
        let circle = try TestCircle(.memory, devices: 3)
        try circle.devices[0].add(account: "a", service: "s", secret: "1")
        try circle.devices[1].add(account: "b", service: "s", secret: "2")
        try circle.syncAll(rounds: 2)
        try circle.devices[2].update(account: "a", service: "s", secret: "3")
        try circle.syncAll(rounds: 2)
        // The last acknowledgments of what the others read still arrive, and change nothing.
        let settling = try circle.syncAll(rounds: 1)
        #expect(settling.allSatisfy { $0.sent == 0 && $0.applied == 0 }, "\(settling)")
        let quiet = try circle.syncAll(rounds: 2)
        #expect(quiet.allSatisfy { $0.sent == 0 && $0.applied == 0 && $0.received == 0 }, "\(quiet)")
        try circle.expectConverged()
    }

    @Test("items added before a device joined reach it, and its own reach the others", arguments: StoreFactory.all)
    func existingItemsOnJoin(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 1)
        let a = circle.devices[0]
        try a.add(account: "old", service: "svc", secret: "from a")
        try circle.syncAll()
        let b = try circle.makeDevice(name: "late")
        try b.add(account: "mine", service: "svc", secret: "from b")
        try circle.admit(b, by: a)
        circle.adopt(b)
        try circle.syncAll(rounds: 3)
        #expect(try b.secret(account: "old", service: "svc") == "from a")
        #expect(try a.secret(account: "mine", service: "svc") == "from b")
        try circle.expectConverged()
    }

    @Test(
        "local and this-device-only items never reach the store, and no secret or name is in it in clear",
        arguments: StoreFactory.all)
    func scopeAndStoreBytes(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(
            account: "synced-account-xyzzy", service: "synced-service-plugh", secret: "synced-secret-quux",
            label: "synced-label-frob")
        try a.add(account: "local-account", service: "local-service", secret: "local-secret", synchronizable: false)
        try a.engine.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .account: .string("tdo-account"), .service: .string("tdo-service"), .synchronizable: .bool(true),
                    .accessible: .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue),
                ], data: Data("tdo-secret".utf8), allowsThisDeviceOnlySynchronizable: true), for: TestDevice.caller)
        try circle.syncAll()
        #expect(try b.secret(account: "synced-account-xyzzy", service: "synced-service-plugh") == "synced-secret-quux")
        #expect(try b.synchronizableItems().count == 1)
        var records: [(name: String, bytes: [UInt8])] = []
        for name in try circle.store.list(prefix: "") {
            records.append((name, try #require(try circle.store.get(name))))
        }
        let everything = records.flatMap(\.bytes)
        for needle in [
            "synced-account-xyzzy", "synced-service-plugh", "synced-secret-quux", "synced-label-frob", "local-account",
            "local-secret", "tdo-account", "tdo-secret", "tdo-service",
        ] {
            #expect(!contains(everything, Array(needle.utf8)), "the store holds \(needle) in clear")
        }
        // One item version only (plus the circle's own records).
        let itemRecords = records.filter { SyncRecords.isItemVersion($0.bytes, name: $0.name) }
        #expect(itemRecords.count == 1)
    }

    @Test("an item moved out of scope is deleted from the other devices and stays local")
    func movedOutOfScope() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "acct", service: "svc", secret: "s")
        try circle.syncAll()
        #expect(try b.secret(account: "acct", service: "svc") == "s")
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("acct")], synchronizable: .synchronizableOnly)
        _ = try a.engine.update(
            query, with: ItemChanges(attributes: [.synchronizable: .bool(false)]), for: TestDevice.caller)
        try circle.syncAll()
        #expect(try b.secret(account: "acct", service: "svc") == nil)
        try circle.expectConverged()
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
