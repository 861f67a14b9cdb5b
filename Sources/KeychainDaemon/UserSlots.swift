import Dispatch
import KeychainCore
import Synchronization

/// Turns to do something costly, at most `perUser` at once for one user and, when `total` is set, at most that
/// many for all users together. A turn that cannot be had waits; turns are given in the order they were asked for,
/// skipping a user who already has all of theirs: one user waiting on their own turns never holds up another's.
///
/// keychaind takes a turn for each request it carries out (so one user's requests, and the memory they take, are
/// bounded whatever the number of their connections) and another for each passcode it stretches (Argon2id's
/// memory and time).
final class UserSlots: Sendable {
    private let perUser: Int
    private let total: Int?

    private final class Waiter: Sendable {
        let uid: UInt32
        let granted = DispatchSemaphore(value: 0)
        init(uid: UInt32) { self.uid = uid }
    }

    private struct State {
        var held: [UInt32: Int] = [:]
        var heldInAll = 0
        var waiting: [Waiter] = []
    }

    private let state = Mutex(State())

    init(perUser: Int, total: Int? = nil) {
        self.perUser = perUser
        self.total = total
    }

    /// Runs `body` during one of `uid`'s turns, waiting for it first.
    func during<Result, Failure: Error>(
        _ uid: UInt32, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        acquire(uid)
        defer { release(uid) }
        return try body()
    }

    /// Takes one of `uid`'s turns, waiting until there is one.
    private func acquire(_ uid: UInt32) {
        let waiter = state.withLock { (state) -> Waiter? in
            if canHold(uid, in: state) {
                hold(uid, in: &state)
                return nil
            }
            let waiter = Waiter(uid: uid)
            state.waiting.append(waiter)
            return waiter
        }
        waiter?.granted.wait()
    }

    /// Gives back one of `uid`'s turns, and hands turns to the first waiters that can have them.
    private func release(_ uid: UInt32) {
        let granted = state.withLock { (state) -> [Waiter] in
            state.held[uid, default: 1] -= 1
            if state.held[uid] == 0 { state.held[uid] = nil }
            state.heldInAll -= 1
            var granted: [Waiter] = []
            var index = 0
            while index < state.waiting.count, total.map({ state.heldInAll < $0 }) ?? true {
                let waiter = state.waiting[index]
                if canHold(waiter.uid, in: state) {
                    hold(waiter.uid, in: &state)
                    granted.append(state.waiting.remove(at: index))
                } else {
                    index += 1
                }
            }
            return granted
        }
        for waiter in granted { waiter.granted.signal() }
    }

    private func canHold(_ uid: UInt32, in state: State) -> Bool {
        state.held[uid, default: 0] < perUser && total.map { state.heldInAll < $0 } ?? true
    }

    private func hold(_ uid: UInt32, in state: inout State) {
        state.held[uid, default: 0] += 1
        state.heldInAll += 1
    }
}
