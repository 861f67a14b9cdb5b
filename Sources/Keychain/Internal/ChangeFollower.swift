import Foundation
import KeychainCore
import Synchronization

/// One change stream: a reader of the backend's change feed that turns the feed's records (attributes only, no
/// service or account) into the typed changes of one query.
///
/// It keeps the attributes of the items the query matches (never a secret): a removal record names only the item,
/// and the stream reports the removed item as it was. An added or updated item is read again by its persistent
/// reference, so its change carries its attributes as they are when the stream reads it; an item the caller
/// cannot read now (its class is locked here, or it is gone again) is skipped, and its removal is then reported
/// only if the stream knew it.
final class ChangeFollower<Value: StoredItemValue>: Sendable {
    typealias Continuation = AsyncStream<KeychainChange<Value>>.Continuation

    private struct State {
        var cursor: Int64
        var known: [PersistentReference: Item]
    }

    private let backend: any KeychainBackend
    private let caller: Caller
    private let query: ItemQuery
    private let continuation: Continuation
    private let state: Mutex<State>
    /// The feed reads one page at a time.
    private static var pageSize: Int { 500 }

    /// Starts following from the newest change, knowing the items `query` matches now.
    init(backend: any KeychainBackend, caller: Caller, query: ItemQuery, continuation: Continuation) throws(EngineError)
    {
        self.backend = backend
        self.caller = caller
        self.query = query
        self.continuation = continuation
        let cursor = try backend.latestChangeSequence()
        state = Mutex(State(cursor: cursor, known: Self.matching(query, in: backend, for: caller)))
    }

    /// Reads the feed up to now and yields what concerns the query. Serialised: one reader at a time.
    func catchUp() {
        state.withLock { state in
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
        if change.kind == .removed {
            if let item = state.known.removeValue(forKey: reference) {
                continuation.yield(.removed(Value(reading: item)))
            }
            return
        }
        guard let item = read(reference) else { return }
        if query.matches(item, for: caller) {
            let isNew = change.kind == .added && state.known[reference] == nil
            state.known[reference] = item
            continuation.yield(isNew ? .added(Value(reading: item)) : .updated(Value(reading: item)))
        } else if state.known.removeValue(forKey: reference) != nil {
            // The update moved the item out of the query: still reported, with its new attributes.
            continuation.yield(.updated(Value(reading: item)))
        }
    }

    /// The feed lost changes this stream had not read (compaction, or another keychain's sequence): compare what
    /// the query matches now with what the stream knew, report the difference, and go on from `sequence`'s newest.
    private func resync(_ state: inout State, from sequence: Int64) {
        let now = Self.matching(query, in: backend, for: caller)
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
        state.cursor = (try? backend.latestChangeSequence()) ?? sequence
    }

    /// One item's attributes, by its persistent reference; `nil` when it is gone or cannot be read now.
    private func read(_ reference: PersistentReference) -> Item? {
        let exact = ItemQuery(
            itemClass: reference.itemClass, synchronizable: .any, persistentReference: reference,
            returning: [.attributes, .persistentReference])
        return try? backend.copyMatching(exact, for: caller).first
    }

    /// The attributes of every item a query matches now that can be read, by persistent reference.
    private static func matching(
        _ query: ItemQuery, in backend: any KeychainBackend, for caller: Caller
    ) -> [PersistentReference: Item] {
        var all = query
        all.limit = .all
        all.returning = [.attributes, .persistentReference]
        let items = (try? backend.copyMatching(all, for: caller)) ?? []
        return Dictionary(items.map { ($0.persistentReference, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
