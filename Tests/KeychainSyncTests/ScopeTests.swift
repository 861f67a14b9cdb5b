import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// A member's build decides what it sends; a receiver decides what it takes (issue 21, item 9). Each test seals a
/// version a correct device never sends, with the circle's real keys and a member's real signature, and checks that
/// the other device writes nothing of it and says why.
@Suite("Sync scope on the way in")
struct ScopeTests {
    /// Versions a correct device never sends.
    enum Forgery: String, CaseIterable, Sendable {
        case thisDeviceOnly = "this device only"
        case notSynchronizable = "not synchronizable"
        case accessControl = "access control"

        func apply(to content: inout ItemContent) throws {
            switch self {
            case .thisDeviceOnly:
                content.attributes[.accessible] = .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue)
            case .notSynchronizable: content.attributes[.synchronizable] = .bool(false)
            case .accessControl:
                content.attributes[.accessControl] = try AccessConstraint(flags: .userPresence).attributeValue
            }
        }
    }

    @Test("a version outside sync's scope is not applied", arguments: Forgery.allCases)
    func outsideScope(_ forgery: Forgery) throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        var content = try content(of: b, account: "planted")
        try forgery.apply(to: &content)
        try b.forge(content)
        let reports = try circle.syncAll()
        #expect(try a.secret(account: "planted", service: "svc") == nil)
        #expect(try a.synchronizableItems().isEmpty)
        let problems = reports.flatMap(\.problems)
        #expect(problems.contains { $0.contains("does not sync") }, "\(problems)")
    }

    @Test("an ak version sealed under the ck key is not applied")
    func wrongClassKey() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        let content = try content(of: b, account: "downgraded")
        #expect(content.keyClass == .whenUnlocked)
        try b.forge(content, under: .afterFirstUnlock)
        let reports = try circle.syncAll()
        #expect(try a.secret(account: "downgraded", service: "svc") == nil)
        let problems = reports.flatMap(\.problems)
        #expect(problems.contains { $0.contains("sealed under the ck key") }, "\(problems)")
    }

    /// A whenUnlocked synchronizable item's content, from a local-only item of `device` (which its own passes do
    /// not send).
    private func content(of device: TestDevice, account: String) throws -> ItemContent {
        let item = try device.add(account: account, service: "svc", secret: "planted secret", synchronizable: false)
        var content = ItemContent(item)
        content.attributes[.synchronizable] = .bool(true)
        return content
    }
}

extension TestDevice {
    /// Appends to this device's log a signed version of `content` as a new item, sealed under the current epoch's
    /// `keyClass` key (the one its accessibility needs by default): what a broken or hostile member could send.
    func forge(_ content: ItemContent, under keyClass: SyncKeyClass? = nil) throws {
        let sync = self.sync
        try sync.withLock { () throws(SyncError) in
            guard let epoch = sync.epochKeys.keys.max(), let keys = try sync.allEpochKeys(epoch) else {
                throw SyncError(.notTrusted, "the forging device holds no epoch")
            }
            let uuid = UUID()
            _ = try sync.append(.item) { (entry: inout LogEntry) throws(SyncError) in
                entry.item = try ItemSealing.seal(
                    content, uuid: uuid, keys: keys, author: entry.author, clock: entry.clock, under: keyClass)
            }
        }
    }
}
