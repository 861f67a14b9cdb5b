import Dispatch
import Foundation
import KeychainCore
import Synchronization

/// One keychain as this process uses it: the engine (opened on first use), the observers of its changes, the lock
/// that orders the writes made through the `Keychain` API, and the queue its `async` calls run on.
///
/// Every ``Keychain`` value on the same directory shares one connection (``ConnectionRegistry``), so they see
/// each other's writes, share one lock state and one change stream.
final class Connection: Sendable {
    /// Where the keychain lives, or `nil` for a backend the caller gave.
    let storage: KeychainStorage?
    /// The observers of changes made through this connection.
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
    /// Held across a write and the reads that describe it, so observers get exact changes in order.
    private let writeLock = Mutex(())

    /// A connection whose backend ``KeychainBackends`` gives on first use.
    init(storage: KeychainStorage, options: EngineOptions) {
        self.storage = storage
        self.options = options
        opened = Mutex(nil)
        let name =
            switch storage {
            case .directory(let url): url.path
            case .inMemory: "in-memory"
            }
        queue = DispatchQueue(label: "swift-keychain \(name)")
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

    /// Registers an observer. Taking the write lock means a write in progress is either wholly seen or not at all.
    func observe(_ observer: @escaping ChangeHub.Observer) -> UInt64 {
        writeLock.withLock { _ in changes.add(observer) }
    }

    // MARK: Writes that publish their changes

    /// Adds an item.
    func add(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        let backend = try backend()
        return try writeLock.withLock { (_) throws(EngineError) -> Item in
            let added = try backend.add(item, for: caller)
            if changes.isObserved {
                var withoutSecret = added
                withoutSecret.data = nil
                changes.publish([ItemChangeRecord(kind: .added, item: withoutSecret, previous: nil)])
            }
            return added
        }
    }

    /// Adds an item or writes it over the one with its primary key, in one transaction.
    func addOrUpdate(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        let backend = try backend()
        return try writeLock.withLock { (_) throws(EngineError) -> Item in
            let previous =
                changes.isObserved
                ? try Self.attributes(of: ItemQuery(primaryKeyOf: item, for: caller), in: backend, for: caller).first
                : nil
            let stored = try backend.addOrUpdate(item, for: caller)
            if changes.isObserved {
                var withoutSecret = stored
                withoutSecret.data = nil
                changes.publish([
                    ItemChangeRecord(kind: previous == nil ? .added : .updated, item: withoutSecret, previous: previous)
                ])
            }
            return stored
        }
    }

    /// Changes every item a query matches, all or nothing, and returns how many.
    func update(_ query: ItemQuery, with change: ItemChanges, for caller: Caller) throws(EngineError) -> Int {
        let backend = try backend()
        return try writeLock.withLock { (_) throws(EngineError) -> Int in
            let before = changes.isObserved ? try Self.attributes(of: query, in: backend, for: caller) : []
            let count = try backend.update(query, with: change, for: caller)
            changes.publish(
                before.map { previous in
                    let current = try? backend.copyMatching(Self.exactly(previous), for: caller).first
                    return ItemChangeRecord(kind: .updated, item: current ?? previous, previous: previous)
                })
            return count
        }
    }

    /// Deletes every item a query matches, all or nothing, and returns how many.
    func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int {
        let backend = try backend()
        return try writeLock.withLock { (_) throws(EngineError) -> Int in
            let before = changes.isObserved ? try Self.attributes(of: query, in: backend, for: caller) : []
            let count = try backend.delete(query, for: caller)
            changes.publish(before.map { ItemChangeRecord(kind: .removed, item: $0, previous: nil) })
            return count
        }
    }

    /// Removes the passcode, which deletes every `akpu` item: observers hear of those as removals. To list them,
    /// the keychain is first unlocked with the same passcode (only while someone observes).
    func removePasscode(current: String) throws(EngineError) {
        let backend = try backend()
        try writeLock.withLock { (_) throws(EngineError) in
            var removed: [Item] = []
            if changes.isObserved {
                try backend.unlock(passcode: current)
                let everyone = Caller(applicationIdentifier: "swift-keychain observer", accessGroups: ["*"])
                for itemClass in ItemClass.allCases {
                    let query = ItemQuery(
                        itemClass: itemClass,
                        attributes: [.accessible: .string(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)],
                        synchronizable: .any)
                    removed += try Self.attributes(of: query, in: backend, for: everyone)
                }
            }
            try backend.removePasscode(current: current)
            changes.publish(removed.map { ItemChangeRecord(kind: .removed, item: $0, previous: nil) })
        }
    }

    // MARK: Private

    /// The attributes of every item a query matches (none when nothing does), without their data.
    private static func attributes(
        of query: ItemQuery, in backend: any KeychainBackend, for caller: Caller
    ) throws(EngineError) -> [Item] {
        var all = query
        all.limit = .all
        all.returning = [.attributes, .persistentReference]
        do throws(EngineError) {
            return try backend.copyMatching(all, for: caller)
        } catch  where KeychainError.isNotFound(error) {
            return []
        }
    }

    /// The query for exactly one item, by its persistent reference.
    private static func exactly(_ item: Item) -> ItemQuery {
        ItemQuery(
            itemClass: item.itemClass, synchronizable: .any, persistentReference: item.persistentReference,
            returning: .attributes)
    }
}
