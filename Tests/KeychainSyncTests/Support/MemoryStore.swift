import Foundation
import KeychainSync
import Synchronization

/// A ``SyncStore`` in memory, for the sync engine's tests until (and beside) the folder and PostgreSQL stores: the
/// same contract (names checked, put-if-absent, watch), records held in a dictionary.
final class MemoryStore: SyncStore {
    private let state = Mutex(State())

    private struct State {
        var records: [String: [UInt8]] = [:]
        var watchers: [Int: @Sendable () -> Void] = [:]
        var nextWatcher = 0
    }

    /// Every record, for tests that scan the store's bytes.
    var records: [String: [UInt8]] { state.withLock { $0.records } }

    func list(prefix: String) throws(SyncStoreError) -> [String] {
        state.withLock { $0.records.keys.filter { $0.hasPrefix(prefix) }.sorted() }
    }

    func get(_ name: String) throws(SyncStoreError) -> [UInt8]? {
        try Self.check(name)
        return state.withLock { $0.records[name] }
    }

    func putIfAbsent(_ name: String, _ bytes: [UInt8]) throws(SyncStoreError) -> Bool {
        try Self.check(name)
        let (written, watchers) = state.withLock { state -> (Bool, [@Sendable () -> Void]) in
            guard state.records[name] == nil else { return (false, []) }
            state.records[name] = bytes
            return (true, Array(state.watchers.values))
        }
        for watcher in watchers { watcher() }
        return written
    }

    func delete(_ name: String) throws(SyncStoreError) {
        try Self.check(name)
        _ = state.withLock { $0.records.removeValue(forKey: name) }
    }

    /// Replaces a record's bytes behind the devices' backs (a store that tampers).
    func overwrite(_ name: String, _ bytes: [UInt8]) {
        state.withLock { $0.records[name] = bytes }
    }

    func watch(_ onChange: @escaping @Sendable () -> Void) throws(SyncStoreError) -> any SyncStoreWatch {
        let id = state.withLock { state -> Int in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = onChange
            return state.nextWatcher
        }
        return Watch { [weak self] in _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) } }
    }

    private final class Watch: SyncStoreWatch {
        let stop: @Sendable () -> Void
        init(_ stop: @escaping @Sendable () -> Void) { self.stop = stop }
        func cancel() { stop() }
    }

    static func check(_ name: String) throws(SyncStoreError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_./".utf8)
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 255, name.utf8.allSatisfy(allowed.contains),
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else { throw SyncStoreError(.invalidName, "the record name \"\(name)\" is not valid") }
    }
}

/// One device's view of a shared store that delivers other devices' records late: a folder that Syncthing has
/// not caught up on, or a partition. The device sees its own writes at once; others' only once delivered,
/// in whatever order the test delivers them, and as often.
final class DelayedView: SyncStore {
    let base: any SyncStore
    private let visible = Mutex<Set<String>>([])
    /// When set, `list` returns every name twice (a store that delivers duplicates).
    let duplicatesListings: Bool
    /// How many more puts succeed before every later one fails as an outage would (`nil`: all succeed).
    private let putsLeft = Mutex<Int?>(nil)

    /// Lets `count` more puts through, then fails every put (`nil`: the store works again).
    func failPuts(after count: Int?) { putsLeft.withLock { $0 = count } }

    init(_ base: any SyncStore, duplicatesListings: Bool = false) {
        self.base = base
        self.duplicatesListings = duplicatesListings
    }

    /// Makes every record of the base store visible.
    func deliverAll() throws {
        let names = try base.list(prefix: "")
        visible.withLock { $0.formUnion(names) }
    }

    /// Makes the given records visible.
    func deliver(_ names: [String]) {
        visible.withLock { $0.formUnion(names) }
    }

    /// Hides records delivered before: a store that withholds them from its listings.
    func withhold(_ names: [String]) {
        visible.withLock { $0.subtract(names) }
    }

    /// The base store's records this view has not delivered yet.
    func undelivered() throws -> [String] {
        let names = try base.list(prefix: "")
        return visible.withLock { seen in names.filter { !seen.contains($0) } }
    }

    func list(prefix: String) throws(SyncStoreError) -> [String] {
        let names = try base.list(prefix: prefix)
        let shown = visible.withLock { seen in names.filter { seen.contains($0) } }
        return duplicatesListings ? (shown + shown).sorted() : shown
    }

    func get(_ name: String) throws(SyncStoreError) -> [UInt8]? {
        guard visible.withLock({ $0.contains(name) }) else { return nil }
        return try base.get(name)
    }

    func putIfAbsent(_ name: String, _ bytes: [UInt8]) throws(SyncStoreError) -> Bool {
        let allowed = putsLeft.withLock { left -> Bool in
            guard let remaining = left else { return true }
            left = remaining - 1
            return remaining > 0
        }
        guard allowed else { throw SyncStoreError(.unavailable, "the store is down (a test's outage)") }
        let written = try base.putIfAbsent(name, bytes)
        if written { _ = visible.withLock { $0.insert(name) } }
        return written
    }

    func delete(_ name: String) throws(SyncStoreError) {
        try base.delete(name)
    }

    func watch(_ onChange: @escaping @Sendable () -> Void) throws(SyncStoreError) -> any SyncStoreWatch {
        try base.watch(onChange)
    }
}
