import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// The sync store and the two keychains of `Tests/Fixtures/sync-format2`, written by the build before record format
/// 3 (JSON log entries, item keys wrapped per version): what ``LegacyRecordTests`` opens and syncs with today's.
enum LegacyStoreFixture {
    /// The fixture's directory in the source tree.
    static var source: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/sync-format2", isDirectory: true)
    }

    /// The synchronizable items the fixture's keychains hold, as (class, account, service or server, secret,
    /// accessibility); the item `deleted@example.com` was added, synced, then deleted by the first device,
    /// which alone synced since (its tombstone is in the store, unread by the second).
    static let items: [(ItemClass, String, String, String, ProtectionClass)] = [
        (.genericPassword, "alice@example.com", "mail.example.com", "second secret of alice", .whenUnlocked),
        (.genericPassword, "bob@example.com", "vpn.example.com", "bob's", .afterFirstUnlock),
        (.internetPassword, "carol", "git.example.com", String(repeating: "long secret ", count: 40), .whenUnlocked),
        (.genericPassword, "dave@example.com", "mail.example.com", "dave from device1", .whenUnlocked),
    ]

    /// Writes the fixture to the directory `KEYCHAIN_WRITE_SYNC_FIXTURE` names (with the build whose records it
    /// should hold): a folder store and the keychain directories of its two devices.
    static func write(to destination: URL) throws {
        let circle = try TestCircle(.folder, devices: 2)
        let (first, second) = (circle.devices[0], circle.devices[1])
        for (itemClass, account, place, secret, accessible) in items {
            let device = account.hasPrefix("dave") ? second : first
            var attributes: ItemAttributes = [
                .account: .string(account), .synchronizable: .bool(true), .accessible: .string(accessible.rawValue),
            ]
            attributes[itemClass == .internetPassword ? .server : .service] = .string(place)
            if itemClass == .internetPassword {
                attributes[.protocol] = .string("htps")
                attributes[.port] = .integer(443)
                attributes[.label] = .string("Carol's forge")
            }
            let stored = account.hasPrefix("alice") ? "first secret of alice" : secret
            try device.engine.add(
                NewItem(itemClass: itemClass, attributes: attributes, data: Data(stored.utf8)), for: TestDevice.caller)
        }
        try first.add(account: "deleted@example.com", service: "mail.example.com", secret: "gone")
        try circle.syncAll()
        try second.update(account: "alice@example.com", service: "mail.example.com", secret: "second secret of alice")
        try circle.syncAll()
        // Only the first device syncs after the deletion: its tombstone stays in the store, unread by the second.
        try first.delete(account: "deleted@example.com", service: "mail.example.com")
        try first.sync.syncOnce()
        try first.close()
        try second.close()
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for (name, copied) in [("store", "store"), ("device0", "device0"), ("device1", "device1")] {
            try FileManager.default.copyItem(
                at: circle.temporary.url.appendingPathComponent(name), to: destination.appendingPathComponent(copied))
        }
    }
}

@Suite("Legacy sync store fixture")
struct LegacyStoreFixtureWriter {
    @Test(
        "writes Tests/Fixtures/sync-format2 with this build",
        .enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_WRITE_SYNC_FIXTURE"] != nil))
    func writeFixture() throws {
        let path = try #require(ProcessInfo.processInfo.environment["KEYCHAIN_WRITE_SYNC_FIXTURE"])
        try LegacyStoreFixture.write(to: URL(fileURLWithPath: path, isDirectory: true))
    }
}
