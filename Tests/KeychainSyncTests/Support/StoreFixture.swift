import Foundation
import KeychainSync
import TestSupport

/// One store of a test's own, opened as many times as the test likes: each ``open()`` is another instance on the
/// same records (another device's view).
protocol StoreFixture: Sendable {
    /// Another instance of the store.
    func open() throws(SyncStoreError) -> any SyncStore
}

/// A folder store in a temporary directory of the test's own.
final class FolderFixture: StoreFixture {
    let directory: TemporaryDirectory
    /// The store's folder.
    var path: String { directory.url.appendingPathComponent("store").path }
    /// The store's URL.
    var url: String { "file://" + path }

    init() throws { directory = try TemporaryDirectory(prefix: "kcsync") }

    func open() throws(SyncStoreError) -> any SyncStore { try FolderStore(path: path, pollInterval: 0.5) }
}

/// A PostgreSQL store in a database of the test's own (dropped when the fixture is released), on the test
/// process's shared server or one the test started.
final class PostgresFixture: StoreFixture {
    /// The database's URL.
    let url: String
    private let server: PostgresServer
    private let database: String

    convenience init() throws { try self.init(server: PostgresServer.shared()) }

    init(server: PostgresServer) throws {
        self.server = server
        (database, url) = try server.makeDatabase()
    }

    deinit { server.dropDatabase(database) }

    func open() throws(SyncStoreError) -> any SyncStore { try PostgresStore(url: url, connectTimeout: 5) }
}
