import Dispatch
import Foundation
import Synchronization

/// Tells observers that the change feed may have grown: after each commit made in this process, and — for a
/// keychain on disk — when another process writes the database (a ``DatabaseWatcher`` on the keychain directory,
/// started while anyone observes).
///
/// A notice says only "read the feed": observers then call `changes(since:for:limit:)`, so notices may be
/// coalesced or spurious but a committed change is never left unannounced. Handlers run on the notifier's own
/// serial queue, never under the engine's lock.
final class ChangeNotifier: Sendable {
    typealias Handler = @Sendable () -> Void

    private struct State {
        var nextID: UInt64 = 0
        var handlers: [UInt64: Handler] = [:]
        var watcher: DatabaseWatcher?
        /// Whether a delivery is already queued (notices that arrive meanwhile are folded into it).
        var isDeliveryQueued = false
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "swift-keychain change notices")
    /// The directory to watch for other processes' writes, or `nil` in memory.
    private let directory: String?

    init(directory: String?) {
        self.directory = directory
    }

    /// Whether anyone observes.
    var isObserved: Bool { state.withLock { !$0.handlers.isEmpty } }

    /// Adds a handler; the first one starts the directory watcher.
    func add(_ handler: @escaping Handler) throws(EngineError) -> ChangeObservation {
        let id = try state.withLock { (state) throws(EngineError) -> UInt64 in
            if state.handlers.isEmpty, let directory {
                state.watcher = try DatabaseWatcher(directory: directory) { [weak self] in self?.signal() }
            }
            state.nextID += 1
            state.handlers[state.nextID] = handler
            return state.nextID
        }
        return ChangeObservation { [weak self] in self?.remove(id) }
    }

    /// Removes a handler; the last one stops the watcher.
    private func remove(_ id: UInt64) {
        let stopped = state.withLock { (state) -> DatabaseWatcher? in
            state.handlers[id] = nil
            guard state.handlers.isEmpty else { return nil }
            defer { state.watcher = nil }
            return state.watcher
        }
        stopped?.stop()
    }

    /// Queues a notice to every handler (cheap, never blocks: safe under the engine's lock).
    func signal() {
        let queue = state.withLock { (state) -> Bool in
            guard !state.handlers.isEmpty, !state.isDeliveryQueued else { return false }
            state.isDeliveryQueued = true
            return true
        }
        guard queue else { return }
        self.queue.async { [weak self] in self?.deliver() }
    }

    private func deliver() {
        let handlers = state.withLock { (state) -> [Handler] in
            state.isDeliveryQueued = false
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }
}
