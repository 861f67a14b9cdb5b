import Synchronization

/// The change streams open on one keychain in this process (``ChangeFollower``s), so a write made through the
/// `Keychain` API can let each of them catch up before the write returns: this process's own changes are then
/// reported exactly, each with the attributes it left. Writes by others (the `Security` module, other processes)
/// reach the followers through the backend's change notices instead.
final class ChangeHub: Sendable {
    typealias CatchUp = @Sendable () -> Void

    private struct State {
        var nextID: UInt64 = 0
        var followers: [UInt64: CatchUp] = [:]
    }

    private let state = Mutex(State())

    /// Whether any stream is open.
    var isObserved: Bool { state.withLock { !$0.followers.isEmpty } }

    /// Adds a follower's catch-up and returns the identifier that removes it.
    func add(_ catchUp: @escaping CatchUp) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.followers[state.nextID] = catchUp
            return state.nextID
        }
    }

    /// Removes a follower.
    func remove(_ id: UInt64) {
        _ = state.withLock { state in state.followers.removeValue(forKey: id) }
    }

    /// Lets every follower read the feed up to now.
    func catchUp() {
        let followers = state.withLock { Array($0.followers.values) }
        for catchUp in followers { catchUp() }
    }
}
