import Dispatch
import Foundation
import KeychainCore
import Synchronization

/// Gathers the writes that reach one user's keychain together and commits them in one transaction and one sync
/// (``Engine/commitTogether(_:)``), answering each only once the commit is durable.
///
/// No thread of its own: the first writer that finds no commit running leads — it takes every write queued so
/// far (its own included), commits them, hands out the results, and goes on while more have queued meanwhile.
/// The others wait for their result. A lone writer commits at once, as without grouping.
final class GroupCommitter: Sendable {
    private let engine: Engine

    private final class Slot: Sendable {
        private let result = Mutex<Result<GroupedWriteResult, EngineError>?>(nil)
        private let ready = DispatchSemaphore(value: 0)

        func fill(_ value: Result<GroupedWriteResult, EngineError>) {
            result.withLock { $0 = value }
            ready.signal()
        }

        func wait() -> Result<GroupedWriteResult, EngineError> {
            ready.wait()
            return result.withLock { $0 } ?? .failure(EngineError(.internalComponent, "a grouped write got no result"))
        }
    }

    private struct Pending: Sendable {
        var write: GroupedWrite
        var caller: Caller
        var slot: Slot
    }

    private struct State {
        var pending: [Pending] = []
        var isCommitting = false
    }

    private let state = Mutex(State())
    /// The most writes one transaction takes (a bound on how long the first of them waits).
    private static let groupLimit = 256

    init(engine: Engine) {
        self.engine = engine
    }

    /// Carries out one write, grouped with whatever arrives together; returns once it is durable (or refused).
    func commit(_ write: GroupedWrite, for caller: Caller) -> Result<GroupedWriteResult, EngineError> {
        let slot = Slot()
        let leads = state.withLock { (state) -> Bool in
            state.pending.append(Pending(write: write, caller: caller, slot: slot))
            guard !state.isCommitting else { return false }
            state.isCommitting = true
            return true
        }
        if leads { lead() }
        return slot.wait()
    }

    private func lead() {
        while true {
            let group = state.withLock { (state) -> [Pending] in
                let taken = Array(state.pending.prefix(Self.groupLimit))
                state.pending.removeFirst(taken.count)
                if taken.isEmpty { state.isCommitting = false }
                return taken
            }
            guard !group.isEmpty else { return }
            let results = engine.commitTogether(group.map { ($0.write, $0.caller) })
            for (pending, result) in zip(group, results) { pending.slot.fill(result) }
        }
    }
}
