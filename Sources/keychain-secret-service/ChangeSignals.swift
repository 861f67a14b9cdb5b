import Foundation
import KeychainCore
import Synchronization

/// The collection's `ItemCreated`, `ItemChanged` and `ItemDeleted` for every writer — a Swift app, the `security`
/// tool, sync — read from the keychain's change feed, not only for the writes made through the service.
///
/// Signals go to every program on the bus, so they tell only what every program of the user may see: the feed of
/// the user's shared group (through keychaind, the feed of the bus daemon's process, an unregistered program of the
/// user), never a registered app's writes. The service's own writes are signalled as they happen; the feed's
/// account of them is not signalled twice.
final class ChangeSignals: Sendable {
    private let backend: any KeychainBackend
    private let caller: Caller
    /// Set by the feed's observer (another thread); the bus loop reads the feed when it finds it set.
    private let pending = PendingFlag()
    private let state = Mutex<State>(State())
    private struct State {
        var cursor: Int64 = 0
        var observation: ChangeObservation?
        /// Signals the service sent for its own writes, not yet seen in the feed: `member path` → how many.
        var sent: [String: Int] = [:]
    }

    /// Follows the feed of `backend` as `caller`, from now on.
    init(backend: any KeychainBackend, caller: Caller) throws(EngineError) {
        self.backend = backend
        self.caller = caller
        let cursor = try backend.latestChangeSequence()
        let observation = try backend.observeChanges { [pending] in pending.raise() }
        state.withLock {
            $0.cursor = cursor
            $0.observation = observation
        }
    }

    deinit {
        state.withLock { $0.observation?.cancel() }
    }

    /// Notes a signal the service sent for its own write.
    func sent(_ member: String, _ path: String) {
        state.withLock { $0.sent["\(member) \(path)", default: 0] += 1 }
    }

    /// Signals what the feed holds since last time, when it may have grown (called from the bus loop).
    /// Returns whether the feed showed any change (the service's cached records may then be stale).
    @discardableResult
    func flush(_ emit: (_ member: String, _ path: String, _ collection: String) -> Void) -> Bool {
        guard pending.lower() else { return false }
        var cursor = state.withLock { $0.cursor }
        var changes: [ItemChange] = []
        do throws(EngineError) {
            while true {
                let batch = try backend.changes(since: cursor, for: caller, limit: 256)
                changes += batch.changes
                cursor = batch.cursor
                if !batch.hasMore { break }
            }
        } catch  where error.resyncSequence != nil {
            // The feed was compacted past the cursor: start over from the oldest change it holds whole.
            cursor = error.resyncSequence ?? cursor
            pending.raise()
        } catch {
            pending.raise()  // tried again on the next turn of the loop
            return true  // what changed is unknown
        }
        let signals = state.withLock { state in
            state.cursor = cursor
            return changes.compactMap { change -> (String, String, String)? in
                guard change.itemClass == .genericPassword else { return nil }
                let member =
                    switch change.kind {
                    case .added: "ItemCreated"
                    case .updated: "ItemChanged"
                    case .removed: "ItemDeleted"
                    }
                // The caller's own group is the collection `login`; another group, the collection of its name when
                // it is one (a Swift app's reverse-DNS group is no collection of an embedded keychain).
                let group = change.accessGroup ?? caller.defaultGroup
                let collection = group == caller.defaultGroup ? SecretItemStore.loginCollection : group
                guard SecretItemStore.isAliasName(collection) else { return nil }
                let path = SecretService.path(of: change.persistentReference, in: collection)
                let key = "\(member) \(path)"
                if let count = state.sent[key] {
                    state.sent[key] = count > 1 ? count - 1 : nil
                    return nil
                }
                return (member, path, collection)
            }
        }
        for (member, path, collection) in signals { emit(member, path, collection) }
        return !changes.isEmpty
    }
}

/// A flag one thread raises and another lowers.
private final class PendingFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func raise() { value.store(true, ordering: .releasing) }

    /// Lowers the flag; whether it was raised.
    func lower() -> Bool { value.exchange(false, ordering: .acquiring) }
}
