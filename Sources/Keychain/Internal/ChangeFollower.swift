import Foundation
import KeychainCore
import Synchronization

/// One change stream: a reader of the backend's change feed that turns the feed's records (attributes only, no
/// service or account) into the typed changes of one query.
///
/// It keeps the attributes of the items the query matches (never a secret): a removal record names only the item,
/// and the stream reports the removed item as it was. An added or updated item is read again by its persistent
/// reference, so its change carries its attributes as they are when the stream reads it.
///
/// The lock decides what can be read, never what is reported: a change to an item whose class is locked in this
/// process is held, in order, and reported once the item can be read (the engine's notice after an unlock wakes
/// the stream); a removal of an item the stream knows is reported at once, locked or not. A stream that starts
/// while a class is locked learns the items the query matches at the first moment it can read them, and reports
/// every later change to them. What it can never report is an item it never could read: one added and removed
/// again while its class was locked here, or one that existed when the stream started locked and was removed
/// before the unlock (nothing says whether it matched the query).
final class ChangeFollower<Value: StoredItemValue>: Sendable {
    typealias Continuation = AsyncStream<KeychainChange<Value>>.Continuation

    private struct State {
        var cursor: Int64
        var known: [PersistentReference: Item]
        /// Adds and updates whose item could not be read yet (its class is locked here), oldest first.
        var held: [ItemChange] = []
        /// The stream has not learned the items the query matched when it started, or since the feed lost changes
        /// it had not read (a resync): it will as soon as it can read them.
        var needsBaseline = false
        /// The feed lost changes while the stream could not read items: compare once it can.
        var needsResync = false
    }

    /// What reading one item by its persistent reference found.
    private enum Reading {
        case item(Item)
        /// Gone, or unreadable for good (damaged): its removal, if any, follows in the feed.
        case gone
        /// Its class is locked in this process: read it again after the unlock.
        case locked
    }

    private let backend: any KeychainBackend
    private let caller: Caller
    private let query: ItemQuery
    private let continuation: Continuation
    private let state: Mutex<State>
    /// The feed reads one page at a time.
    private static var pageSize: Int { 500 }

    /// Starts following from the newest change, knowing the items `query` matches now (or, when a class is locked,
    /// learning them at the unlock).
    init(backend: any KeychainBackend, caller: Caller, query: ItemQuery, continuation: Continuation) throws(EngineError)
    {
        self.backend = backend
        self.caller = caller
        self.query = query
        self.continuation = continuation
        let cursor = try backend.latestChangeSequence()
        let known = Self.matching(query, in: backend, for: caller)
        state = Mutex(State(cursor: cursor, known: known ?? [:], needsBaseline: known == nil))
    }

    /// Reads the feed up to now and yields what concerns the query, after what was held for the lock when it can
    /// be read now. Serialised: one reader at a time.
    func catchUp() {
        state.withLock { state in
            if state.needsBaseline || state.needsResync || !state.held.isEmpty,
                (try? backend.keybagStatus())?.isLocked == false
            {
                release(&state)
            }
            while true {
                let batch: ChangeBatch
                do throws(EngineError) {
                    batch = try backend.changes(since: state.cursor, for: caller, limit: Self.pageSize)
                } catch {
                    if let resume = error.resyncSequence { resync(&state, from: resume) }
                    return  // Refused (damaged or rolled back): nothing trustworthy to report.
                }
                for change in batch.changes where query.itemClass == nil || change.itemClass == query.itemClass {
                    apply(change, to: &state)
                }
                state.cursor = batch.cursor
                guard batch.hasMore else { return }
            }
        }
    }

    private func apply(_ change: ItemChange, to state: inout State) {
        let reference = change.persistentReference
        let isHeld = state.held.contains { $0.persistentReference == reference }
        if change.kind == .removed {
            // Its held changes can never be read now; the removal says the rest.
            if isHeld { state.held.removeAll { $0.persistentReference == reference } }
            if let item = state.known.removeValue(forKey: reference) {
                continuation.yield(.removed(Value(reading: item)))
            }
            return
        }
        // After a held change of the same item: its changes are reported in order.
        guard !isHeld else { return state.held.append(change) }
        switch read(reference) {
        case .item(let item): report(item, change.kind, to: &state)
        case .gone: break
        case .locked: state.held.append(change)
        }
    }

    /// Reports an added or updated item as it reads now.
    private func report(_ item: Item, _ kind: ItemChange.Kind, to state: inout State) {
        let reference = item.persistentReference
        if query.matches(item, for: caller) {
            state.known[reference] = item
            continuation.yield(kind == .added ? .added(Value(reading: item)) : .updated(Value(reading: item)))
        } else if state.known.removeValue(forKey: reference) != nil {
            // The update moved the item out of the query: still reported, with its new attributes.
            continuation.yield(.updated(Value(reading: item)))
        }
    }

    /// Now that the keychain is unlocked here: learns the items the stream could not know, then reports the held
    /// changes it can read, in order (an item still unreadable keeps its changes, and their order, held).
    private func release(_ state: inout State) {
        if state.needsResync {
            guard let now = Self.matching(query, in: backend, for: caller) else { return }
            state.held.removeAll()
            compare(&state, with: now)
            state.needsResync = false
            state.needsBaseline = false
        }
        if state.needsBaseline {
            guard let now = Self.matching(query, in: backend, for: caller) else { return }
            state.known.merge(now) { known, _ in known }
            state.needsBaseline = false
        }
        var stillHeld: [ItemChange] = []
        for change in state.held {
            let reference = change.persistentReference
            if stillHeld.contains(where: { $0.persistentReference == reference }) {
                stillHeld.append(change)
                continue
            }
            switch read(reference) {
            case .item(let item): report(item, change.kind, to: &state)
            case .gone: break
            case .locked: stillHeld.append(change)
            }
        }
        state.held = stillHeld
    }

    /// The feed lost changes this stream had not read (compaction, or another keychain's sequence): compare what
    /// the query matches now with what the stream knew, report the difference, and go on from the newest change.
    /// While a class is locked here nothing can be compared: that waits for the unlock.
    private func resync(_ state: inout State, from sequence: Int64) {
        state.cursor = (try? backend.latestChangeSequence()) ?? sequence
        guard let now = Self.matching(query, in: backend, for: caller) else {
            state.needsResync = true
            return
        }
        state.held.removeAll()
        compare(&state, with: now)
    }

    /// Reports what differs between the items the stream knows and `now`, and knows `now`.
    private func compare(_ state: inout State, with now: [PersistentReference: Item]) {
        for (reference, item) in state.known where now[reference] == nil {
            continuation.yield(.removed(Value(reading: item)))
        }
        for (reference, item) in now {
            guard let before = state.known[reference] else {
                continuation.yield(.added(Value(reading: item)))
                continue
            }
            if before != item { continuation.yield(.updated(Value(reading: item))) }
        }
        state.known = now
    }

    /// One item's attributes, by its persistent reference.
    private func read(_ reference: PersistentReference) -> Reading {
        let exact = ItemQuery(
            itemClass: reference.itemClass, synchronizable: .any, persistentReference: reference,
            returning: [.attributes, .persistentReference])
        do throws(EngineError) {
            return try backend.copyMatching(exact, for: caller).first.map { .item($0) } ?? .gone
        } catch {
            return error.code == .interactionNotAllowed ? .locked : .gone
        }
    }

    /// The attributes of every item a query matches now, by persistent reference; `nil` when some candidate's
    /// class is locked in this process (the search cannot tell whether it matches).
    private static func matching(
        _ query: ItemQuery, in backend: any KeychainBackend, for caller: Caller
    ) -> [PersistentReference: Item]? {
        var all = query
        all.limit = .all
        all.returning = [.attributes, .persistentReference]
        let items: [Item]
        do throws(EngineError) {
            items = try backend.copyMatching(all, for: caller)
        } catch {
            switch error.code {
            case .interactionNotAllowed: return nil
            case .itemNotFound: items = []
            default: items = []  // Damaged or refused: the stream reports what it reads from here on.
            }
        }
        return Dictionary(items.map { ($0.persistentReference, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
