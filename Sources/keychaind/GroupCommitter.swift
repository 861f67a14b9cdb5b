import Dispatch
import Foundation
import KeychainCore
import Synchronization

/// Gathers the writes that reach one user's keychain together and commits them in one transaction and one sync
/// (``Engine/commitTogether(_:)``), answering each only once the commit is durable.
///
/// No thread of its own: the first writer that finds no commit running leads — it takes every write queued so
/// far (its own included) and commits them. The writes that arrive meanwhile queue up for the next group; when
/// the commit is done the leader hands the lead to the first of them and goes back to answer its client, so the
/// next group commits while the leader's reply travels, and no writer waits for more than the group before its
/// own. A lone writer commits at once, as without grouping.
final class GroupCommitter: Sendable {
    private let engine: Engine

    /// Where a waiting writer learns its result, or that it leads the next group.
    private final class Slot: Sendable {
        enum Outcome: Sendable {
            case done(Result<GroupedWriteResult, EngineError>)
            case lead
        }

        private let outcome = Mutex<Outcome?>(nil)
        private let ready = DispatchSemaphore(value: 0)

        func fill(_ value: Outcome) {
            outcome.withLock { $0 = value }
            ready.signal()
        }

        /// Waits for the next outcome, and takes it.
        func wait() -> Outcome {
            ready.wait()
            return outcome.withLock { outcome in
                defer { outcome = nil }
                return outcome ?? .done(.failure(EngineError(.internalComponent, "a grouped write got no result")))
            }
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
        while true {
            switch slot.wait() {
            case .done(let result): return result
            case .lead: lead()
            }
        }
    }

    /// Commits every write queued now (this writer's own among them), then hands the lead to the first write that
    /// queued meanwhile, or ends the commit when none did.
    private func lead() {
        let group = state.withLock { (state) -> [Pending] in
            let taken = Array(state.pending.prefix(Self.groupLimit))
            state.pending.removeFirst(taken.count)
            return taken
        }
        let results = engine.commitTogether(group.map { ($0.write, $0.caller) })
        let next = state.withLock { (state) -> Slot? in
            guard let first = state.pending.first else {
                state.isCommitting = false
                return nil
            }
            return first.slot
        }
        next?.fill(.lead)
        for (pending, result) in zip(group, results) { pending.slot.fill(.done(result)) }
    }
}
