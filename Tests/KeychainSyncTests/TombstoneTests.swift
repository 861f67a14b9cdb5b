import Foundation
import KeychainCore
import KeychainSync
import TestSupport
import Testing

/// Tombstones stay in the store until every member acknowledged them, then go with their item's records; a
/// device that missed them resyncs instead of bringing the item back.
@Suite("Sync tombstones")
struct TombstoneTests {
    /// The item records in the store (versions and tombstones), by their clear kind (JSON's `kind` field, format
    /// 3's kind byte).
    private func itemRecordCount(_ store: any SyncStore) throws -> Int {
        var count = 0
        for name in try store.list(prefix: "devices/") {
            guard let bytes = try store.get(name) else { continue }
            if SyncRecords.isItemVersion(bytes, name: name) || SyncRecords.isTombstone(bytes, name: name) {
                count += 1
            }
        }
        return count
    }

    @Test(
        "a tombstone is kept until every member acknowledged it, then the item's records leave the store",
        arguments: StoreFactory.all)
    func keptUntilAcknowledged(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try a.add(account: "temp", service: "svc", secret: "v1")
        try circle.syncAll()
        try b.update(account: "temp", service: "svc", secret: "v2")
        try circle.syncAll()
        #expect(try itemRecordCount(circle.store) == 2)
        try a.delete(account: "temp", service: "svc")
        // C does not sync: the tombstone and the versions stay.
        try circle.syncAll(rounds: 3, except: [c])
        #expect(try itemRecordCount(circle.store) == 3)
        #expect(try b.secret(account: "temp", service: "svc") == nil)
        // Once C has read and acknowledged it, the records go.
        try circle.syncAll(rounds: 4)
        #expect(try itemRecordCount(circle.store) == 0)
        for device in circle.devices { #expect(try device.secret(account: "temp", service: "svc") == nil) }
        // A device that joins now never sees the item.
        let late = try circle.makeDevice(name: "late")
        try circle.admit(late, by: a)
        circle.adopt(late)
        try circle.syncAll(rounds: 2)
        #expect(try late.secret(account: "temp", service: "svc") == nil)
        let quiet = try circle.syncAll(rounds: 2)
        #expect(quiet.allSatisfy { $0.sent == 0 && $0.applied == 0 }, "\(quiet)")
        try circle.expectConverged()
    }

    @Test(
        "an old copy restored after the tombstone was compacted resyncs and brings nothing back",
        arguments: StoreFactory.all)
    func restoredPastHorizon(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "gone", service: "svc", secret: "old")
        try a.add(account: "kept", service: "svc", secret: "stays")
        try circle.syncAll()
        let backup = circle.temporary.url.appendingPathComponent("backup", isDirectory: true)
        try b.close()
        try FileManager.default.copyItem(at: b.directory, to: backup)
        try b.reopen()
        try b.delete(account: "gone", service: "svc")
        try circle.syncAll(rounds: 4)
        #expect(try itemRecordCount(circle.store) == 1)

        try b.close()
        try FileManager.default.removeItem(at: b.directory)
        try FileManager.default.copyItem(at: backup, to: b.directory)
        try b.reopen()
        #expect(try b.secret(account: "gone", service: "svc") == "old")
        // The restored copy edits the deleted item before it syncs: still nothing comes back.
        try b.update(account: "gone", service: "svc", secret: "edited offline")
        try circle.syncAll(rounds: 3)
        for device in circle.devices {
            #expect(try device.secret(account: "gone", service: "svc") == nil)
            #expect(try device.secret(account: "kept", service: "svc") == "stays")
        }
        try b.add(account: "new", service: "svc", secret: "after")
        try circle.syncAll()
        #expect(try a.secret(account: "new", service: "svc") == "after")
        try circle.expectConverged()
    }
}
