import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 21, item 4: a store that leaves records out of a listing cannot make a device delete items for good. A
/// resync drops only what a signed compaction names; an item whose records come back is shown again.
@Suite("Sync: a store that withholds records")
struct WithheldListingTests {
    @Test(
        "a listing that omits a live item's records during a resync deletes nothing for good",
        arguments: StoreFactory.all)
    func withheldDuringResync(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add(account: "kept", service: "svc", secret: "still here")
        try circle.syncAll()
        #expect(try b.secret(account: "kept", service: "svc") == "still here")
        // A compaction B never read puts it past the horizon; meanwhile the store leaves A's log out of its listing.
        try a.add(account: "gone", service: "svc", secret: "x")
        try circle.syncAll()
        try a.delete(account: "gone", service: "svc")
        try circle.syncAll(rounds: 3)
        let hidden = try circle.store.list(prefix: "devices/\(a.sync.deviceID)/log/")
        try b.sync.state.setInteger(1, for: SyncDevice.Meta.needsResync)
        b.view.withhold(hidden)
        _ = try? b.sync.syncOnce()
        #expect(try b.secret(account: "kept", service: "svc") == "still here", "withheld records deleted the item")
        try b.view.deliverAll()
        try circle.syncAll(rounds: 2)
        #expect(try b.secret(account: "kept", service: "svc") == "still here")
        #expect(try b.secret(account: "gone", service: "svc") == nil)
        try circle.expectConverged()
    }
}
