import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 27: the store's credentials (a PostgreSQL password) are a secret of the keychain, never in clear in the
/// sync state, whether set up now or by an older build (whose clear URL is sealed when the sync state is next used).
@Suite("Store credentials sealed by the keychain")
struct StoreCredentialsTests {
    static let password = "Sup3r-s3cret-PG-pw"
    static let url = "postgresql://keychain:\(password)@db.example.net:5432/keychain?sslmode=require"

    /// Every byte of the sync state on disk: the database, its write-ahead log and shared memory.
    static func stateBytes(in directory: URL) throws -> Data {
        var bytes = Data()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = directory.appendingPathComponent("sync.sqlite" + suffix).path
            if let data = FileManager.default.contents(atPath: path) { bytes += data }
        }
        return bytes
    }

    static func contains(_ bytes: Data, _ text: String) -> Bool {
        bytes.range(of: Data(text.utf8)) != nil
    }

    static func device(in temporary: TemporaryDirectory) throws -> (URL, Engine) {
        let directory = temporary.url.appendingPathComponent("keychain", isDirectory: true)
        let engine = try Engine(storage: .directory(directory), options: EngineOptions(passcodeCost: .minimum))
        let store = MemoryStore()
        _ = try SyncDevice.createCircle(
            directory: directory, backend: engine, store: store, storeURL: url, name: "laptop")
        return (directory, engine)
    }

    @Test("sync-init with a PostgreSQL password leaves no byte of it in the sync state; the keychain opens it")
    func passwordNotInClear() throws {
        let temporary = try TemporaryDirectory()
        let (directory, engine) = try Self.device(in: temporary)
        #expect(!Self.contains(try Self.stateBytes(in: directory), Self.password), "the password is in sync.sqlite")
        #expect(try SyncDevice.storeURL(in: directory, backend: engine) == Self.url)
        #expect(try SyncDevice.shownStoreURL(in: directory).contains("***"))
        // A copy of the sync state beside another keychain (another device key) does not open it.
        let other = try Engine(
            storage: .directory(temporary.url.appendingPathComponent("other", isDirectory: true)),
            options: EngineOptions(passcodeCost: .minimum))
        #expect(throws: SyncError.self) { try SyncDevice.storeURL(in: directory, backend: other) }
    }

    @Test("a sync state an older build wrote (the URL in clear) is sealed on next use, and keeps working")
    func olderStateMigrates() throws {
        let temporary = try TemporaryDirectory()
        let (directory, engine) = try Self.device(in: temporary)
        // The older layout: the whole URL in `store_url`, nothing sealed.
        do {
            let state = try SyncDatabase.open(in: directory)
            try state.deleteValue(SyncDevice.Meta.storeURLSealed)
            try state.deleteValue(SyncDevice.Meta.storeURLKey)
            try state.setText(Self.url, for: SyncDevice.Meta.storeURL)
        }
        #expect(Self.contains(try Self.stateBytes(in: directory), Self.password), "the older layout holds it in clear")
        #expect(try SyncDevice.storeURL(in: directory, backend: engine) == Self.url)
        #expect(!Self.contains(try Self.stateBytes(in: directory), Self.password), "still in clear after the upgrade")
        #expect(try SyncDevice.storeURL(in: directory, backend: engine) == Self.url)
        let device = try SyncDevice.open(directory: directory, backend: engine, store: MemoryStore())
        #expect(try device.status().storeURL.contains("***"))
    }
}
