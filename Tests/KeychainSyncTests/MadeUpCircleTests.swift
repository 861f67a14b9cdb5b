import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 21, items 6 and 8: the circle code a joining device is given decides which circle it joins. A circle the
/// store makes up (a genesis of its own, older than the real one, whose founder approves the joiner) is refused and
/// pins nothing, so the real circle's approval still admits the device; and the code is long enough (100 bits)
/// that the store cannot grind a key pair to match it.
@Suite("Sync: a made-up circle")
struct MadeUpCircleTests {
    @Test("a refused made-up circle pins nothing: the real circle's approval still admits the device")
    func refusedCirclePinsNothing() throws {
        // The store's own circle is made first, so its genesis is the older one.
        let fake = try TestCircle(.memory, devices: 1)
        let real = try TestCircle(.memory, devices: 1)
        let (forger, founder) = (fake.devices[0], real.devices[0])
        let code = try founder.sync.status().circleCode
        #expect(code.count == 23, "a 100-bit circle code is twenty characters in four groups: \(code)")
        let joiner = try real.makeDevice(name: "joiner", circleCode: code)
        // The store hands the joiner's request to its own founder, who answers and approves it (a made-up circle
        // needs no code: it approves whom it likes), and shows the joiner both.
        try copy(prefix: "devices/\(joiner.sync.deviceID)/", from: real.store, to: fake.store)
        try forger.view.deliverAll()
        try forger.sync.answerJoinRequests()
        try forger.approveWithoutCode(joiner.sync.deviceID)
        try copy(prefix: "devices/", from: fake.store, to: real.store)
        try joiner.view.deliverAll()
        #expect(try joiner.sync.revealJoinCodes().isEmpty, "the made-up circle's founder gets no code")
        try joiner.view.deliverAll()
        // Refused (before this fix, as a circle of the wrong code) or not even taken for a circle: either way the
        // joiner is no member and has sent nothing.
        _ = try? joiner.sync.syncOnce()
        #expect(try joiner.sync.status().membership != .member)
        #expect(try real.store.list(prefix: "devices/\(joiner.sync.deviceID)/log/").isEmpty)
        // The real founder approves it: it joins the real circle.
        try real.admit(joiner, by: founder)
        try joiner.view.deliverAll()
        try joiner.sync.syncOnce()
        let status = try joiner.sync.status()
        #expect(status.membership == .member)
        #expect(status.circleCode == code)
    }

    @Test("a circle code is 100 bits: a code of the old 50-bit form is refused as malformed")
    func circleCodeLength() throws {
        let real = try TestCircle(.memory, devices: 1)
        let founder = real.devices[0]
        #expect(founder.sync.circleCode == (try founder.sync.status().circleCode))
        let shortForm = String(founder.sync.circleCode.prefix(11))
        #expect(throws: SyncError.self) { try real.makeDevice(name: "short", circleCode: shortForm) }
    }

    private func copy(prefix: String, from source: any SyncStore, to target: any SyncStore) throws {
        for name in try source.list(prefix: prefix) {
            guard let bytes = try source.get(name) else { continue }
            _ = try target.putIfAbsent(name, bytes)
        }
    }
}

extension TestDevice {
    /// Writes an approval of `device` with every epoch's key, as a member's code would after a code was typed: what
    /// a circle the store runs does without asking anyone.
    func approveWithoutCode(_ device: String) throws {
        let sync = self.sync
        try sync.withLock { () throws(SyncError) in
            try sync.pull()
            guard let candidate = try sync.identity(of: device) else {
                throw SyncError(.notFound, "no identity of \(device)")
            }
            var shares: [KeyShare] = []
            for (_, keys) in try sync.topLevelKeys() { shares.append(try keys.share(with: candidate, id: device)) }
            try sync.append(.approval) { entry in
                entry.member = candidate
                entry.shares = shares
            }
        }
    }
}
