import Foundation
import KeychainCore
import Synchronization

/// A backend that passes every call to an engine and, once armed, runs an action right after the next change-feed
/// read that finds nothing new returns, or right after the next item write: a user's write landing in the middle of
/// a sync pass (between sending and applying; between applying an item and reading it back).
final class InterposedBackend: KeychainBackend {
    let engine: Engine
    private let pending = Mutex<(@Sendable () -> Void)?>(nil)
    private let pendingAfterWrite = Mutex<(@Sendable () -> Void)?>(nil)
    private let failsNextDelete = Mutex(false)

    /// Makes the next delete fail (an I/O error), as a full or failing disk would.
    func failNextDelete() { failsNextDelete.withLock { $0 = true } }

    init(_ engine: Engine) { self.engine = engine }

    /// Runs `action` after the next `changes(since:for:limit:)`.
    func afterNextFeedRead(_ action: @escaping @Sendable () -> Void) { pending.withLock { $0 = action } }

    /// Runs `action` after the next add or update has returned.
    func afterNextWrite(_ action: @escaping @Sendable () -> Void) { pendingAfterWrite.withLock { $0 = action } }

    /// Runs the armed action of `slot`, if any, and disarms it.
    private func runPending(_ slot: borrowing Mutex<(@Sendable () -> Void)?>) {
        let action = slot.withLock { state -> (@Sendable () -> Void)? in
            defer { state = nil }
            return state
        }
        action?()
    }

    func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
        if case .delete = request,
            failsNextDelete.withLock({ armed in
                defer { armed = false }
                return armed
            })
        {
            throw EngineError(.ioError, "the disk failed (a test's fault)")
        }
        let reply = try engine.perform(request, for: caller)
        switch (request, reply) {
        case (.add, _), (.update, _), (.writeEach, _): runPending(pendingAfterWrite)
        case (.changes, .changes(let batch)) where batch.changes.isEmpty: runPending(pending)
        default: break
        }
        return reply
    }

    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        try engine.observeChanges(handler)
    }
}
