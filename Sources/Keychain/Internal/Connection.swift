import Dispatch
import Foundation
import KeychainClient
import KeychainCore
import Synchronization

/// One keychain as this process uses it: the engine (opened on first use), the change streams open on it, and the
/// queue its `async` calls run on.
///
/// Every ``Keychain`` value on the same directory shares one connection (``ConnectionRegistry``), so they see
/// each other's writes, share one lock state and one change stream.
final class Connection: Sendable {
    /// Where the keychain lives, or `nil` for a backend the caller gave.
    let storage: KeychainStorage?
    /// The change streams open on this keychain.
    let changes = ChangeHub()
    /// Where `async` calls do their blocking work.
    ///
    /// Why a dispatch queue and not the caller's executor or a task: the engine blocks (fsync on every write;
    /// Argon2id for about 0.35 s on unlock and passcode changes), and blocking a thread of Swift's cooperative pool
    /// starves every other task of the process, since that pool has only one thread per core. A dispatch queue
    /// runs on threads outside that pool, and the caller's task is suspended on a continuation meanwhile. The
    /// queue is serial and per keychain because the engine serialises its operations under one lock anyway: more
    /// threads would only wait on that lock, while separate keychains still run side by side.
    let queue: DispatchQueue
    private let options: EngineOptions
    private let opened: Mutex<(any KeychainBackend)?>

    /// A connection whose backend ``KeychainBackends`` gives on first use.
    init(storage: KeychainStorage, options: EngineOptions) {
        self.storage = storage
        self.options = options
        opened = Mutex(nil)
        queue = DispatchQueue(label: "swift-keychain \(storage)")
    }

    /// A connection to a backend the caller opened.
    init(backend: any KeychainBackend) {
        storage = nil
        options = EngineOptions()
        opened = Mutex(backend)
        queue = DispatchQueue(label: "swift-keychain backend")
    }

    /// The backend, from ``KeychainBackends`` on first use (the process's one for a directory). A failed open is
    /// not remembered: the next call tries again.
    func backend() throws(EngineError) -> any KeychainBackend {
        try opened.withLock { (opened) throws(EngineError) -> any KeychainBackend in
            if let opened { return opened }
            guard let storage else { throw EngineError(.internalComponent, "the connection has no backend") }
            let backend = try KeychainBackends.backend(for: storage, options: options)
            opened = backend
            return backend
        }
    }

    /// Creates the keychain in this connection's directory and keeps its backend. Throws `duplicateKeychain` when
    /// the directory holds one (or this connection has opened it already).
    func create() throws(EngineError) {
        try opened.withLock { (opened) throws(EngineError) in
            guard opened == nil, case .some(.directory(let url)) = storage else {
                throw EngineError(.duplicateKeychain, "the keychain is open already")
            }
            opened = try KeychainBackends.createKeychain(in: url, options: options)
        }
    }

    // MARK: Writes, after which this process's change streams catch up

    /// Adds an item.
    func add(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        defer { changes.catchUp() }
        return try backend().add(item, for: caller)
    }

    /// Adds an item or writes it over the one with its primary key, in one transaction.
    func addOrUpdate(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        defer { changes.catchUp() }
        return try backend().addOrUpdate(item, for: caller)
    }

    /// Changes every item a query matches, all or nothing, and returns how many.
    /// Changes every item a query matches, all or nothing, and returns them with their new attributes.
    func update(_ query: ItemQuery, with change: ItemChanges, for caller: Caller) throws(EngineError) -> [Item] {
        defer { changes.catchUp() }
        return try backend().written(.update(query, change), for: caller).items
    }

    /// Deletes every item a query matches, all or nothing, and returns how many.
    func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int {
        defer { changes.catchUp() }
        return try backend().delete(query, for: caller)
    }

    /// Unlocks the keychain; the streams then read what the lock held back (and learn the items they could not),
    /// before this returns.
    func unlock(passcode: Passcode) throws(EngineError) {
        try backend().unlock(passcode: passcode)
        changes.catchUp()
    }

    /// Removes the passcode, which deletes every `akpu` item: the change feed records those removals without
    /// unlocking anything, and the streams report the items they knew.
    func removePasscode(current: Passcode) throws(EngineError) {
        defer { changes.catchUp() }
        try backend().removePasscode(current: current)
    }
}
