import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// A store and keychains written before format 3 (``LegacyStoreFixture``) open and sync with today's build.
@Suite("Sync records of formats 1 and 2")
struct LegacyRecordTests {
    /// A copy of the fixture in a temporary directory, with a keychain's modes (git checks files out with the
    /// umask's).
    private func fixtureCopy() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "sync-format2")
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: LegacyStoreFixture.source, to: directory.url)
        for device in ["device0", "device1"] {
            let keychain = directory.url.appendingPathComponent(device)
            for name in try FileManager.default.contentsOfDirectory(atPath: keychain.path) {
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o600], ofItemAtPath: keychain.appendingPathComponent(name).path)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: keychain.path)
        }
        return directory
    }

    /// Opens a device of the fixture (`device0` or `device1`) on `store`.
    private func open(_ name: String, in directory: TemporaryDirectory, store: any SyncStore) throws -> TestDevice {
        let clock = TestClock()
        let keychain = directory.url.appendingPathComponent(name)
        let engine = try Engine(storage: .directory(keychain), options: TestDevice.engineOptions(clock))
        let view = DelayedView(store, duplicatesListings: false)
        try view.deliverAll()
        let sync = try SyncDevice.open(
            directory: keychain, backend: engine, store: view, options: TestDevice.syncOptions(clock))
        return TestDevice(directory: keychain, clock: clock, engine: engine, sync: sync, view: view)
    }

    /// The fixture's items as snapshots of a device's keychain would show them.
    private func expectFixtureItems(in device: TestDevice, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let items = try device.synchronizableItems()
        for (itemClass, account, place, secret, accessible) in LegacyStoreFixture.items {
            let match = items.first { $0.itemClass == itemClass && $0.attributes[.account] == .string(account) }
            #expect(match?.data == Data(secret.utf8), "\(account)", sourceLocation: sourceLocation)
            let placeKey: AttributeKey = itemClass == .internetPassword ? .server : .service
            #expect(match?.attributes[placeKey] == .string(place), sourceLocation: sourceLocation)
            #expect(match?.attributes[.accessible] == .string(accessible.rawValue), sourceLocation: sourceLocation)
        }
        #expect(!items.contains { $0.attributes[.account] == .string("deleted@example.com") })
        #expect(items.count == LegacyStoreFixture.items.count, sourceLocation: sourceLocation)
    }

    @Test("the fixture holds JSON item and tombstone records with wrapped item keys")
    func fixtureIsLegacy() throws {
        let directory = try fixtureCopy()
        let store = try FolderStore(path: directory.url.appendingPathComponent("store").path, pollInterval: 0.5)
        var kinds: [LogEntry.Kind: Int] = [:]
        for name in try store.list(prefix: RecordName.devices) {
            guard case .log? = RecordName.parse(name), let bytes = try store.get(name) else { continue }
            #expect(bytes[SigningKeyPair.signatureByteCount] == UInt8(ascii: "{"))
            let entry = try SignedRecord.unverifiedBody(LogEntry.self, bytes, name: name)
            #expect(entry.format == 2)
            kinds[entry.kind, default: 0] += 1
            if entry.kind == .item { #expect(entry.item?.wrappedKey != nil) }
        }
        #expect(kinds[.item] == 6 && kinds[.tombstone] == 1, "\(kinds)")
    }

    @Test("a new device joins a store written by the previous build and gets its items; old devices go on in format 3")
    func newDeviceSyncsLegacyStore() throws {
        let directory = try fixtureCopy()
        let store = try FolderStore(path: directory.url.appendingPathComponent("store").path, pollInterval: 0.5)
        let first = try open("device0", in: directory, store: store)
        let second = try open("device1", in: directory, store: store)
        // The second device had not read the first's tombstone yet: it does now.
        try second.sync.syncOnce()
        try expectFixtureItems(in: second)
        try expectFixtureItems(in: first)
        // A device made by today's build joins, approved by a device of the previous one.
        let newcomer = try makeNewcomer(store: store, in: directory)
        try pair(newcomer.sync, newcomer.view, with: first.sync, first.view)
        let devices = [first, second, newcomer]
        for _ in 0..<3 {
            for device in devices {
                try device.view.deliverAll()
                let report = try device.sync.syncOnce()
                #expect(report.problems.isEmpty, "\(report.problems)")
            }
        }
        try expectFixtureItems(in: newcomer)
        // The old devices write format 3 now, chained to their format 2 entries, and everyone reads it.
        try second.update(account: "dave@example.com", service: "mail.example.com", secret: "dave in format 3")
        try newcomer.add(account: "erin@example.com", service: "mail.example.com", secret: "erin's")
        for _ in 0..<2 {
            for device in devices {
                try device.view.deliverAll()
                let report = try device.sync.syncOnce()
                #expect(report.problems.isEmpty, "\(report.problems)")
            }
        }
        for device in devices {
            #expect(try device.secret(account: "dave@example.com", service: "mail.example.com") == "dave in format 3")
            #expect(try device.secret(account: "erin@example.com", service: "mail.example.com") == "erin's")
            #expect(try device.sync.status().refused.isEmpty)
        }
        let latest = try #require(
            try second.sync.state.entries(kinds: [.item]).last { $0.author == second.sync.deviceID })
        #expect(latest.bytes[SigningKeyPair.signatureByteCount] == CompactEntry.format)
    }

    private func makeNewcomer(store: any SyncStore, in directory: TemporaryDirectory) throws -> TestDevice {
        let keychain = directory.url.appendingPathComponent("newcomer")
        let clock = TestClock()
        let engine = try Engine(storage: .directory(keychain), options: TestDevice.engineOptions(clock))
        let view = DelayedView(store, duplicatesListings: false)
        try view.deliverAll()
        let sync = try SyncDevice.join(
            directory: keychain, backend: engine, store: view, storeURL: "file://" + directory.url.path + "/store",
            name: "newcomer", options: TestDevice.syncOptions(clock))
        return TestDevice(directory: keychain, clock: clock, engine: engine, sync: sync, view: view)
    }
}
