import Foundation
import KeychainCore
import Synchronization
import TestSupport
import Testing

@testable import KeychainSync

/// A kind of store the multi-device scenarios run on: in memory, a folder, and PostgreSQL where a server can be had
/// (its scenarios are left out, and say so in the list of arguments, where none can).
struct StoreFactory: Sendable, CustomStringConvertible {
    var name: String
    /// Makes an empty store inside a test's temporary directory: the store, the URL devices record for it, and
    /// whatever must live as long as the store (a PostgreSQL database is dropped with its fixture).
    var make: @Sendable (TemporaryDirectory) throws -> (store: any SyncStore, url: String, owner: AnyObject?)

    var description: String { name }

    static let memory = StoreFactory(name: "memory") { _ in (MemoryStore(), "memory:", nil) }

    static let folder = StoreFactory(name: "folder") { temporary in
        let path = temporary.url.appendingPathComponent("store").path
        return (try FolderStore(path: path, pollInterval: 0.5), "file://" + path, nil)
    }

    static let postgres = StoreFactory(name: "postgresql") { _ in
        let fixture = try PostgresFixture()
        return (try fixture.open(), fixture.url, fixture)
    }

    /// Every store the scenarios run on.
    static var all: [StoreFactory] {
        [.memory, .folder] + (PostgresServer.isAvailable ? [.postgres] : [])
    }
}

/// A wall clock a test can set off by some interval (a machine whose clock is wrong).
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    func set(offset: TimeInterval) { self.offset.withLock { $0 = offset } }

    var now: @Sendable () -> Date {
        { [self] in Date().addingTimeInterval(offset.withLock { $0 }) }
    }
}

/// One device of a test circle: a keychain directory, its engine, its sync device, its view of the store.
final class TestDevice {
    let directory: URL
    /// The wall clock its engine and sync device read (found by review: each device once had a clock of its own that
    /// nothing read, so the skewed-clock scenarios ran on the true time).
    let clock: TestClock
    let view: DelayedView
    private(set) var engine: Engine
    /// Its sync device, between ``close()`` and ``reopen()`` none.
    private var openSync: SyncDevice?
    /// Its sync device (a test that uses it while the device is closed is wrong, and stops).
    var sync: SyncDevice {
        guard let openSync else { preconditionFailure("\(directory.lastPathComponent) is closed") }
        return openSync
    }

    init(directory: URL, clock: TestClock, engine: Engine, sync: SyncDevice, view: DelayedView) {
        self.directory = directory
        self.clock = clock
        self.engine = engine
        openSync = sync
        self.view = view
    }

    /// Opens the engine and sync state again (after its files were replaced).
    func reopen() throws {
        engine = try Engine(storage: .directory(directory), options: TestDevice.engineOptions(clock))
        openSync = try SyncDevice.open(
            directory: directory, backend: engine, store: view, options: TestDevice.syncOptions(clock))
    }

    /// Lets go of the engine and sync state (their files may then be copied or replaced).
    func close() throws {
        engine = try Engine(storage: .inMemory)
        openSync = nil
    }

    static func engineOptions(_ clock: TestClock) -> EngineOptions {
        EngineOptions(passcodeCost: .minimum, now: clock.now)
    }

    static func syncOptions(_ clock: TestClock) -> SyncOptions {
        SyncOptions(now: clock.now)
    }

    static let caller = Caller.administrator(defaultGroup: "com.example.app")

    /// Adds a generic password.
    @discardableResult
    func add(
        account: String, service: String, secret: String, synchronizable: Bool = true,
        accessible: ProtectionClass = .whenUnlocked, label: String? = nil
    ) throws -> Item {
        var attributes: ItemAttributes = [
            .account: .string(account), .service: .string(service), .synchronizable: .bool(synchronizable),
            .accessible: .string(accessible.rawValue),
        ]
        if let label { attributes[.label] = .string(label) }
        return try engine.add(
            NewItem(itemClass: .genericPassword, attributes: attributes, data: Data(secret.utf8)), for: Self.caller)
    }

    /// Changes the secret of a synchronizable generic password.
    func update(account: String, service: String, secret: String) throws {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string(account), .service: .string(service)],
            synchronizable: .synchronizableOnly)
        _ = try engine.update(query, with: ItemChanges(data: Data(secret.utf8)), for: Self.caller)
    }

    /// Deletes a synchronizable generic password.
    func delete(account: String, service: String) throws {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string(account), .service: .string(service)],
            synchronizable: .synchronizableOnly)
        _ = try engine.delete(query, for: Self.caller)
    }

    /// The persistent reference of the synchronizable generic password of `account`.
    func reference(account: String) throws -> PersistentReference {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string(account)], synchronizable: .synchronizableOnly,
            returning: [.attributes])
        return try #require(try engine.copyMatching(query, for: Self.caller).first).persistentReference
    }

    /// The secret of a synchronizable generic password, or `nil` when there is none.
    func secret(account: String, service: String) throws -> String? {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string(account), .service: .string(service)],
            synchronizable: .synchronizableOnly, returning: [.data])
        do throws(EngineError) {
            return try engine.copyMatching(query, for: Self.caller).first?.data.map {
                String(decoding: $0, as: UTF8.self)
            }
        } catch {
            if error.code == .itemNotFound { return nil }
            throw error
        }
    }

    /// Every synchronizable item, as comparable snapshots (class, attributes without dates, secret).
    func synchronizableItems() throws -> Set<ItemSnapshot> {
        var result: Set<ItemSnapshot> = []
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            let query = ItemQuery(
                itemClass: itemClass, synchronizable: .synchronizableOnly, limit: .all, returning: [.attributes, .data])
            do throws(EngineError) {
                for item in try engine.copyMatching(query, for: Self.caller) { result.insert(ItemSnapshot(item)) }
            } catch {
                if error.code == .itemNotFound { continue }
                throw error
            }
        }
        return result
    }
}

/// An item's content without what differs between devices by design (dates, persistent reference).
struct ItemSnapshot: Hashable, CustomStringConvertible {
    var itemClass: ItemClass
    var attributes: ItemAttributes
    var data: Data

    /// What sync carries of `item` (``ItemContent``: without its dates).
    init(_ item: Item) {
        let content = ItemContent(item)
        itemClass = content.itemClass
        attributes = content.attributes
        data = content.data
    }

    var description: String {
        "\(itemClass.rawValue) \(attributes.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: " ")) data=\(String(decoding: data, as: UTF8.self))"
    }
}

/// Several devices sharing one store, each with its own keychain directory in one temporary directory.
final class TestCircle {
    let temporary: TemporaryDirectory
    let store: any SyncStore
    let url: String
    private let owner: AnyObject?
    private(set) var devices: [TestDevice] = []

    /// A circle of `count` devices: the first creates it, each other joins and is approved by the first by its code.
    /// How many characters its devices' join codes have (tests lower it to grind codes).
    let joinCodeCharacters: Int

    init(
        _ factory: StoreFactory, devices count: Int, duplicatesListings: Bool = false, joinCodeCharacters: Int = 10
    ) throws {
        self.joinCodeCharacters = joinCodeCharacters
        temporary = try TemporaryDirectory(prefix: "sync")
        (store, url, owner) = try factory.make(temporary)
        for index in 0..<count {
            let device = try makeDevice(name: "device\(index)", duplicatesListings: duplicatesListings)
            if index > 0 {
                try admit(device, by: devices[0])
            }
            devices.append(device)
        }
        try syncAll()
    }

    /// A new device: the first creates the circle, later ones ask to join (not yet approved).
    func makeDevice(name: String, duplicatesListings: Bool = false, circleCode: String? = nil) throws -> TestDevice {
        let directory = temporary.url.appendingPathComponent(name, isDirectory: true)
        let clock = TestClock()
        let engine = try Engine(storage: .directory(directory), options: TestDevice.engineOptions(clock))
        let view = DelayedView(store, duplicatesListings: duplicatesListings)
        try view.deliverAll()
        var options = TestDevice.syncOptions(clock)
        options.joinCodeCharacters = joinCodeCharacters
        let sync =
            devices.isEmpty
            ? try SyncDevice.createCircle(
                directory: directory, backend: engine, store: view, storeURL: url, name: name,
                options: options)
            : try SyncDevice.join(
                directory: directory, backend: engine, store: view, storeURL: url, name: name,
                circleCode: circleCode, options: options)
        let device = TestDevice(directory: directory, clock: clock, engine: engine, sync: sync, view: view)
        return device
    }

    /// Has `member` admit `device` as users would (``pair(_:_:with:_:)``).
    func admit(_ device: TestDevice, by member: TestDevice) throws {
        try pair(device.sync, device.view, with: member.sync, member.view)
    }

    /// Adds a device made by ``makeDevice(name:duplicatesListings:)`` to the circle's list.
    func adopt(_ device: TestDevice) { devices.append(device) }

    /// Delivers everything to every device and syncs each, `rounds` times (each round lets a device see what the
    /// previous ones wrote).
    @discardableResult
    func syncAll(rounds: Int = 2, except skipped: [TestDevice] = []) throws -> [SyncReport] {
        var reports: [SyncReport] = []
        for _ in 0..<rounds {
            for device in devices where !skipped.contains(where: { $0 === device }) {
                try device.view.deliverAll()
                reports.append(try device.sync.syncOnce())
            }
        }
        return reports
    }

    /// The invariant after every scenario: all live devices hold the same synchronizable items.
    func expectConverged(_ live: [TestDevice]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let live = live ?? devices
        let reference = try live[0].synchronizableItems()
        for device in live.dropFirst() {
            #expect(try device.synchronizableItems() == reference, sourceLocation: sourceLocation)
        }
    }
}

/// Pairs a joining device with a member as their users would: the member answers the join requests, the joining
/// device reveals its nonce and shows its code, and the member approves the code typed there.
func pair(_ joiner: SyncDevice, _ joinerView: DelayedView, with member: SyncDevice, _ memberView: DelayedView) throws {
    try memberView.deliverAll()
    try member.answerJoinRequests()
    try joinerView.deliverAll()
    guard let code = try joiner.revealJoinCodes()[member.name] else {
        throw SyncError(.notFound, "\(member.name) did not answer \(joiner.name)'s join request")
    }
    try memberView.deliverAll()
    try member.approve(code: code)
}
