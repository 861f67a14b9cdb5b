import Foundation
import KeychainCore
import KeychainWire
import Synchronization

/// Where every API gets its `KeychainBackend`: the one factory that picks the backend for a keychain's
/// `KeychainStorage` — the embedded `Engine` for a directory or memory, the process's one client of keychaind
/// for a socket — and keeps the process's one cache of open engines and clients.
public enum KeychainBackends {
    /// The backend of a keychain. For a directory, it is the process's one: opened (and the keychain created, when
    /// the directory holds none) by the first caller, whose `options` count, then shared by every module that asks
    /// for the same directory, by any path to it, so they share one lock state. That lock state is the process's:
    /// once unlocked with a passcode, the engine stays open until the process ends (or the keychain is deleted),
    /// however many values come and go; until then it closes when its last user releases it. In memory, every call makes a new, empty keychain. Through keychaind, the
    /// process's one client of that socket (the daemon holds the keychain and its lock state; `options` are its).
    public static func backend(
        for storage: KeychainStorage, options: EngineOptions = EngineOptions()
    ) throws(EngineError) -> any KeychainBackend {
        switch storage {
        case .inMemory:
            return try Engine(storage: .inMemory, options: options)
        case .daemon(let path):
            return daemonClient(socketPath: path, user: nil)
        case .directory(let url):
            return try OpenEngines.engine(at: url, options: options)
        }
    }

    /// Whether `directory` holds a keychain (its database or its device key). Creates nothing.
    public static func keychainExists(in directory: URL) -> Bool {
        KeychainDirectory(url: directory).holdsKeychain
    }

    /// Creates a keychain in `directory` (created 0700 when missing) and returns its backend, as
    /// ``backend(for:options:)`` does. Throws `EngineError/Code/duplicateKeychain` when the directory holds a
    /// keychain already, and creates nothing then. (Two processes creating one at the same moment may both succeed:
    /// the engine builds a keychain all at once, so they then share the one that was linked into place first.)
    public static func createKeychain(
        in directory: URL, options: EngineOptions = EngineOptions()
    ) throws(EngineError) -> any KeychainBackend {
        guard !keychainExists(in: directory) else {
            throw EngineError(.duplicateKeychain, "a keychain exists in \(directory.path) already")
        }
        return try backend(for: .directory(directory), options: options)
    }

    /// Deletes the keychain in `directory`: the device key first (without it nothing left can be decrypted), then
    /// the database and its WAL files, then the directory itself when nothing else is in it. Files that are not
    /// the keychain's are left alone. Throws `EngineError/Code/noSuchKeychain` when the directory holds no
    /// keychain. Every user of its backend must release it first: an engine still open would keep using deleted
    /// files. The next ``backend(for:options:)`` for the directory opens a new keychain.
    public static func deleteKeychain(in directory: URL) throws(EngineError) {
        OpenEngines.forget(directory)
        try KeychainDirectory(url: directory).remove()
    }
}

extension KeychainBackends {
    /// The process's client of keychaind at `socketPath`, for the calling user's keychain or (root only) `user`'s.
    package static func daemonClient(socketPath: String, user: UInt32?) -> DaemonClient {
        daemonClients.withLock { clients in
            if let client = clients.first(where: { $0.socketPath == socketPath && $0.user == user }) { return client }
            let client = DaemonClient(socketPath: socketPath, user: user)
            clients.append(client)
            return client
        }
    }
}

/// The clients made so far, one per socket and user. A list, not a dictionary: a process has one or two, and a
/// dictionary keyed by a type of ours costs a short command its metadata and conformance lookups at first use.
private let daemonClients = Mutex<[DaemonClient]>([])

/// The engines open in this process, by keychain directory (symbolic links resolved): the process's one cache.
///
/// An engine is held weakly until its keybag is first unlocked with a passcode, then strongly until the process ends
/// or the keychain is deleted: the lock state is the process's, not a value's (issue 20, item 7), so an unlock
/// through a `Keychain` value that is then released still holds for `Security`'s next call. Before that, reopening
/// gives the same state (locked, or no passcode), so an engine nobody uses is closed.
private enum OpenEngines {
    private struct Entry {
        weak var engine: Engine?
        /// The same engine, once its lock state is one that reopening would lose.
        var unlocked: Engine?
    }

    private static let engines = Mutex<[String: Entry]>([:])

    /// The open engine of `directory`, or a new one.
    static func engine(at directory: URL, options: EngineOptions) throws(EngineError) -> Engine {
        let key = self.key(directory)
        let (engine, isNew) = try engines.withLock { (engines) throws(EngineError) -> (Engine, Bool) in
            if let engine = engines[key]?.engine { return (engine, false) }
            engines = engines.filter { $0.value.engine != nil }
            let engine = try Engine(storage: .directory(URL(fileURLWithPath: key, isDirectory: true)), options: options)
            engines[key] = Entry(engine: engine)
            return (engine, true)
        }
        // Outside the cache's lock: the handler takes it, and may run at once.
        if isNew { engine.whenFirstUnlocked { unlocked in keep(unlocked, at: key) } }
        return engine
    }

    /// Holds `engine` for the rest of the process, while it is still the one open for `key`.
    private static func keep(_ engine: Engine, at key: String) {
        engines.withLock { engines in
            if engines[key]?.engine === engine { engines[key]?.unlocked = engine }
        }
    }

    /// Forgets the engine of a directory about to be deleted, so the next open starts afresh.
    static func forget(_ directory: URL) {
        let key = self.key(directory)
        engines.withLock { engines in engines[key] = nil }
    }

    private static func key(_ directory: URL) -> String {
        directory.standardizedFileURL.resolvingSymlinksInPath().path
    }
}
