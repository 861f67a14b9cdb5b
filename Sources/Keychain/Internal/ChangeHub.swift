import KeychainCore
import Synchronization

/// One write the `Keychain` API made, as its observers see it: attributes only, never a secret.
struct ItemChangeRecord: Sendable {
    /// What happened.
    enum Kind: Sendable {
        case added, updated, removed
    }

    let kind: Kind
    /// The item as it is now (as it was, for a removal), without its data.
    let item: Item
    /// The item's attributes before an update, so an observer whose query the update moved the item out of still
    /// hears about it.
    let previous: Item?
}

/// The observers of one keychain in this process, and the delivery of changes to them.
///
/// Delivery is a call to each observer's closure, in the order writes complete (writers publish while holding the
/// connection's write lock); the closures only hand the changes to a buffer and never block.
final class ChangeHub: Sendable {
    typealias Observer = @Sendable ([ItemChangeRecord]) -> Void

    private struct State {
        var nextID: UInt64 = 0
        var observers: [UInt64: Observer] = [:]
    }

    private let state = Mutex(State())

    /// Whether anyone observes: when nobody does, writers skip the reads that describe their changes.
    var isObserved: Bool { state.withLock { !$0.observers.isEmpty } }

    /// Adds an observer and returns the identifier that removes it.
    func add(_ observer: @escaping Observer) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = observer
            return state.nextID
        }
    }

    /// Removes an observer.
    func remove(_ id: UInt64) {
        _ = state.withLock { state in state.observers.removeValue(forKey: id) }
    }

    /// Hands changes to every observer.
    func publish(_ changes: [ItemChangeRecord]) {
        guard !changes.isEmpty else { return }
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer(changes) }
    }
}
