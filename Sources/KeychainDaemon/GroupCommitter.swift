import Dispatch
import Foundation
import KeychainCore
import Synchronization

/// Gathers the writes that reach one user's keychain together and commits them in one transaction and one sync
/// (``Engine/commitTogether(_:joining:)``), answering each only once the commit is durable.
///
/// No thread of its own: the first writer that finds no commit running leads — it takes every write queued so
/// far (its own included) and commits them, and the writes that queue while they are being written join the
/// same transaction. The writes that arrive after queue up for the next group; when the commit is done the
/// leader hands the lead to the first of them and goes back to answer its client, so the next group commits
/// while the leader's reply travels, and no writer waits for more than the group before its own.
///
/// Writers answered together come back a moment apart, and a leader that took only the first would split them
/// into groups that alternate, each with a sync of its own: a leader first waits, briefly, until every writer
/// active in the last moment has a write queued. A lone writer never waits and commits at once, as without
/// grouping.
final class GroupCommitter: Sendable {
    private let engine: Engine

    /// Where a waiting writer learns its result, or that it leads the next group.
    private final class Slot: Sendable {
        enum Outcome: Sendable {
            case done(Result<WriteResult, EngineError>)
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
        var write: BackendRequest
        var caller: Caller
        var slot: Slot
    }

    private struct State {
        var pending: [Pending] = []
        var isCommitting = false
        /// When each writer (a connection's thread) last wrote: the writers active now, whom a leader waits for.
        var lastWrite: [UInt: UInt64] = [:]
        /// How many queued writes the waiting leader waits for (`nil` when none waits).
        var awaited: Int?

        /// How many writers wrote within the last ``activeWindow`` nanoseconds (forgetting the others).
        mutating func activeWriters(at now: UInt64) -> Int {
            let since = now &- GroupCommitter.activeWindow
            if lastWrite.count > 64 { lastWrite = lastWrite.filter { $0.value >= since } }
            return lastWrite.values.reduce(0) { $0 + ($1 >= since ? 1 : 0) }
        }
    }

    private let state = ParkingMutex(State())
    /// The most writes one transaction takes (a bound on how long the first of them waits).
    private static let groupLimit = 256
    /// A writer that wrote within this long (ns) is counted as active: it is expected back soon.
    fileprivate static let activeWindow: UInt64 = 2_000_000
    /// The longest a leader waits (ns) for the active writers that are not queued yet.
    private static let longestWait: UInt64 = 200_000
    /// Signalled when the queue reaches what the waiting leader waits for.
    private let arrivals = DispatchSemaphore(value: 0)

    init(engine: Engine) {
        self.engine = engine
    }

    /// Carries out one write, grouped with whatever arrives together; returns once it is durable (or refused).
    func commit(_ write: BackendRequest, for caller: Caller) -> Result<WriteResult, EngineError> {
        let slot = Slot()
        let now = DispatchTime.now().uptimeNanoseconds
        let (leads, wakes) = state.withLock { (state) -> (Bool, Bool) in
            state.pending.append(Pending(write: write, caller: caller, slot: slot))
            state.lastWrite[UInt(pthread_self())] = now
            var wakes = false
            if let awaited = state.awaited, state.pending.count >= awaited {
                state.awaited = nil
                wakes = true
            }
            guard !state.isCommitting else { return (false, wakes) }
            state.isCommitting = true
            return (true, wakes)
        }
        if wakes { arrivals.signal() }
        if leads { lead() }
        while true {
            switch slot.wait() {
            case .done(let result): return result
            case .lead: lead()
            }
        }
    }

    /// Commits every write queued now (this writer's own among them) and those that queue while it is being
    /// written, then hands the lead to the first write that queued after, or ends the commit when none did.
    private func lead() {
        awaitActiveWriters()
        var group = state.withLock { (state) -> [Pending] in
            let taken = Array(state.pending.prefix(Self.groupLimit))
            state.pending.removeFirst(taken.count)
            return taken
        }
        let results = engine.commitTogether(group.map { ($0.write, $0.caller) }) {
            let joined = state.withLock { (state) -> [Pending] in
                let room = max(0, Self.groupLimit - group.count)
                let taken = Array(state.pending.prefix { $0.write.canJoinRunningGroup }.prefix(room))
                state.pending.removeFirst(taken.count)
                return taken
            }
            group += joined
            return joined.map { ($0.write, $0.caller) }
        }
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

extension GroupCommitter {
    /// Waits, at most ``longestWait``, until every active writer has a write queued: they come back from their
    /// last answer a moment apart, and each that misses this group would cost a sync of its own. A lone writer
    /// never waits.
    fileprivate func awaitActiveWriters() {
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.longestWait
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let waits = state.withLock { (state) -> Bool in
                let expected = state.activeWriters(at: now)
                guard state.pending.count < expected, now < deadline else {
                    state.awaited = nil
                    return false
                }
                state.awaited = expected
                return true
            }
            guard waits else { return }
            if arrivals.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .timedOut {
                // A signal sent as the wait timed out is taken now, so that it does not cut a later wait short.
                let signalled = state.withLock { (state) -> Bool in
                    defer { state.awaited = nil }
                    return state.awaited == nil
                }
                if signalled { _ = arrivals.wait(timeout: .distantFuture) }
                return
            }
        }
    }
}
