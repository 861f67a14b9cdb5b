import Foundation
import KeychainCore
import KeychainSync
import TestSupport
import Testing

/// A device restored from an old copy of its directory brings nothing deleted back, and keeps syncing.
@Suite("Sync restored copies")
struct RestoreTests {
    @Test("an old copy of a device does not resurrect deleted items", arguments: StoreFactory.all)
    func restoredCopy(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "x", service: "svc", secret: "deleted by b")
        try a.add(account: "y", service: "svc", secret: "deleted by a")
        try a.add(account: "z", service: "svc", secret: "kept")
        try circle.syncAll()
        #expect(try b.secret(account: "x", service: "svc") != nil)

        let backup = circle.temporary.url.appendingPathComponent("backup", isDirectory: true)
        try b.close()
        try FileManager.default.copyItem(at: b.directory, to: backup)
        try b.reopen()

        try b.delete(account: "x", service: "svc")
        try a.delete(account: "y", service: "svc")
        try circle.syncAll()
        #expect(try a.secret(account: "x", service: "svc") == nil)

        try b.close()
        try FileManager.default.removeItem(at: b.directory)
        try FileManager.default.copyItem(at: backup, to: b.directory)
        try b.reopen()
        #expect(try b.secret(account: "x", service: "svc") != nil)
        try circle.syncAll(rounds: 3)
        for device in circle.devices {
            #expect(try device.secret(account: "x", service: "svc") == nil)
            #expect(try device.secret(account: "y", service: "svc") == nil)
            #expect(try device.secret(account: "z", service: "svc") == "kept")
        }
        // The restored device writes on after its newer self's records.
        try b.add(account: "after restore", service: "svc", secret: "new")
        try circle.syncAll()
        #expect(try a.secret(account: "after restore", service: "svc") == "new")
        try circle.expectConverged()
    }
}
