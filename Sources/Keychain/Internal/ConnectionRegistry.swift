import Foundation
import KeychainClient
import KeychainCore
import Synchronization

/// The connections open in this process, one per keychain directory, so every ``Keychain`` value on a directory
/// shares one change stream, one write order and one queue. The backend itself (and so the lock state, shared with
/// `Security` and protected files too) comes from `KeychainBackends`, the process's one cache of open engines.
///
/// Entries are weak: a connection goes when the last value using it is released, and with it its hold on the
/// backend.
enum ConnectionRegistry {
    private struct Entry {
        weak var connection: Connection?
    }

    private static let entries = Mutex<[String: Entry]>([:])

    /// The connection to the keychain in a directory or behind keychaind's socket, created (not yet opened) when
    /// none is open. The first one created decides the options.
    static func connection(to storage: KeychainStorage, options: EngineOptions) -> Connection {
        let key: String
        let canonical: KeychainStorage
        switch storage {
        case .directory(let directory):
            key = directory.standardizedFileURL.resolvingSymlinksInPath().path
            canonical = .directory(URL(fileURLWithPath: key, isDirectory: true))
        case .daemon(let path):
            key = "keychaind:" + path
            canonical = storage
        case .inMemory:
            return Connection(storage: storage, options: options)
        }
        return entries.withLock { entries in
            if let connection = entries[key]?.connection { return connection }
            entries = entries.filter { $0.value.connection != nil }
            let connection = Connection(storage: canonical, options: options)
            entries[key] = Entry(connection: connection)
            return connection
        }
    }
}
