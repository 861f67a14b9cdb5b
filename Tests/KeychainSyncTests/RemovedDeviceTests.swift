import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 21, item 1: a removed device cannot undo its removal, rewrite what it wrote before, or show two histories.
/// Each test has the hostile device write real signed records, with its own keys, into the store.
@Suite("Sync: what a removed device cannot do")
struct RemovedDeviceTests {
    @Test(
        "a removed device's counter-exclusion of its remover, dated before its removal, is void everywhere",
        arguments: StoreFactory.all)
    func counterExclusion(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try a.add(account: "before", service: "svc", secret: "shared")
        try circle.syncAll()
        try a.sync.removeDevice(c.sync.deviceID)
        try circle.syncAll(except: [c])
        // C learns of its removal, and writes an exclusion of A dated just before it, with an epoch for B and itself.
        try c.view.deliverAll()
        _ = try c.sync.pull()
        let removal = try #require(
            try c.sync.state.entries(kinds: [.exclusion]).first { $0.author == a.sync.deviceID })
        let trustOnC = try c.sync.trust()
        let ids = (a: a.sync.deviceID, b: b.sync.deviceID, c: c.sync.deviceID)
        let (keys, definition) = try EpochKeys.create(EpochID(number: 2, creator: ids.c))
        let through = removal.sequence - 1
        try c.forgeEntry(
            .exclusion, clock: HybridTime(rawValue: removal.clock.rawValue - 1), in: circle.store
        ) { entry in
            entry.subject = ids.a
            entry.acceptedThrough = through
            entry.acceptedHash = try c.sync.state.link(of: ids.a, at: through)?.hash
            entry.epoch = definition
            entry.shares = [
                try keys.share(with: try #require(trustOnC.admitted[ids.b]), id: ids.b),
                try keys.share(with: try #require(trustOnC.admitted[ids.c]), id: ids.c),
            ]
        }
        try b.add(account: "after", service: "svc", secret: "not for c")
        try circle.syncAll(rounds: 3, except: [c])
        for device in [a, b] {
            let trust = try device.sync.trust()
            #expect(trust.members[ids.a] != nil, "the remover is still a member")
            #expect(trust.members[ids.b] != nil)
            #expect(trust.members[ids.c] == nil, "the removed device is out")
            let epoch = try #require(device.sync.currentEpoch)
            #expect(epoch.creator != ids.c)
            #expect(trust.shares[epoch]?[ids.c] == nil, "the epoch writers use was not given to the removed device")
        }
        #expect(try a.secret(account: "after", service: "svc") == "not for c")
        try circle.expectConverged([a, b])
    }

    @Test("a removed device's rewritten history is refused by a device that joins later", arguments: StoreFactory.all)
    func rewrittenHistory(factory: StoreFactory) throws {
        let circle = try TestCircle(factory, devices: 3)
        let (a, c) = (circle.devices[0], circle.devices[2])
        try c.add(account: "from c", service: "svc", secret: "original")
        try circle.syncAll()
        let ids = (a: a.sync.deviceID, c: c.sync.deviceID)
        let original = try #require(
            try c.sync.state.entries(kinds: [.item]).last { $0.author == ids.c })
        try a.sync.removeDevice(ids.c)
        try circle.syncAll(except: [c])
        // C replaces the version it wrote with another, chained to its previous entry, under the same name.
        let content = try c.sync.open(original)
        var forged = content
        forged.attributes[.account] = .string("forged by c")
        forged.data = Data("rewritten".utf8)
        let name = RecordName.log(ids.c, original.sequence)
        try circle.store.delete(name)
        try c.forgeEntry(
            .item, sequence: original.sequence, clock: HybridTime(rawValue: original.clock.rawValue + 1),
            in: circle.store
        ) { entry in
            let epoch = try #require(c.sync.epochKeys.keys.max())
            entry.item = try ItemSealing.seal(
                forged, uuid: UUID(), keys: try #require(try c.sync.allEpochKeys(epoch)), author: entry.author,
                clock: entry.clock)
        }
        // A new device, approved by A, reads C's log for the first time.
        let newcomer = try circle.makeDevice(name: "newcomer")
        try circle.admit(newcomer, by: a)
        circle.adopt(newcomer)
        try circle.syncAll(rounds: 3, except: [c])
        #expect(try newcomer.secret(account: "forged by c", service: "svc") == nil)
        let status = try newcomer.sync.status()
        #expect(status.refused[ids.c] != nil, "\(status.refused)")
    }

    @Test("a member that signs two bodies under one sequence is refused, and sync-status says so")
    func equivocation() throws {
        let circle = try TestCircle(.memory, devices: 3)
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        try circle.syncAll()
        let idC = c.sync.deviceID
        let (sequence, clock, body) = try c.versionForgery(account: "two faces")
        // The store shows A and B the first body; then the second replaces it, and C chains on from that one.
        try c.forgeEntry(.item, sequence: sequence, clock: clock, in: circle.store, body("first"))
        try circle.syncAll(except: [c])
        try circle.store.delete(RecordName.log(idC, sequence))
        let second = try c.forgeEntry(.item, sequence: sequence, clock: clock, in: circle.store, body("second"))
        try c.forgeEntry(
            .acknowledgment, sequence: sequence + 1, clock: HybridTime(rawValue: clock.rawValue + 1),
            previous: try EntryHash.of(second), in: circle.store
        ) { entry in entry.cursors = [:] }
        try circle.syncAll(except: [c])
        for device in [a, b] {
            let status = try device.sync.status()
            #expect(status.refused[idC] != nil, "\(status.refused)")
            let listed = try device.sync.devices().first { $0.id == idC }
            #expect(listed?.membership == .refused)
            #expect(try device.secret(account: "two faces", service: "svc") == nil)
        }
    }
}

extension TestDevice {
    /// Writes to `store` an entry of this device's log signed with its own key: at `sequence` (its next one by
    /// default), dated `clock`, naming `previous` (the hash of its entry before, by default): what a hostile
    /// device can write whatever its code would do. Returns the record's bytes.
    @discardableResult
    func forgeEntry(
        _ kind: LogEntry.Kind, sequence: Int64? = nil, clock: HybridTime, previous: Data? = nil,
        in store: any SyncStore, _ fill: (inout LogEntry) throws -> Void
    ) throws -> [UInt8] {
        let author = sync.deviceID
        let place =
            try sequence ?? max(sync.state.lastSequence(of: author), sync.storeHighestSequences[author] ?? 0) + 1
        var entry = LogEntry(author: author, sequence: place, clock: clock, kind: kind)
        entry.previous = try previous ?? (place == 1 ? Data() : sync.state.link(of: author, at: place - 1)?.hash)
        try fill(&entry)
        let name = RecordName.log(author, place)
        let bytes = try SignedRecord.seal(entry, name: name, signer: sync.identity.signing)
        #expect(try store.putIfAbsent(name, bytes), "the forged record \(name) was written")
        return bytes
    }

    /// What a device needs to sign versions of one new synchronizable item at its next place, whatever its code
    /// would write: the place, a clock after its last, and a filler that seals a version holding `secret` under the
    /// circle's newest epoch it holds.
    func versionForgery(
        account: String
    ) throws -> (sequence: Int64, clock: HybridTime, body: (String) -> (inout LogEntry) throws -> Void) {
        let epoch = try #require(sync.epochKeys.keys.max())
        let keys = try #require(try sync.allEpochKeys(epoch))
        let template = try add(account: account, service: "svc", secret: "x", synchronizable: false)
        var content = ItemContent(template)
        content.attributes[.synchronizable] = .bool(true)
        let uuid = UUID()
        let sequence = try sync.state.lastSequence(of: sync.deviceID) + 1
        let clock = HybridTime(rawValue: sync.clock.rawValue + 1)
        let body: (String) -> (inout LogEntry) throws -> Void = { secret in
            { entry in
                var version = content
                version.data = Data(secret.utf8)
                entry.item = try ItemSealing.seal(version, uuid: uuid, keys: keys, author: entry.author, clock: clock)
            }
        }
        return (sequence, clock, body)
    }
}
