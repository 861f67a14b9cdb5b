import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// A short wait that polls before it sleeps.
///
/// A request and its reply each wake a sleeping thread on the other side, and on a virtual machine whose idle
/// processor halts (no halt polling in the guest: Debian's default on many clouds), each wake-up costs tens of
/// microseconds and runs the woken work from cold caches: measured here, a bare C ping over a socket pair between two
/// processes took 48–60 µs at p50 when both slept and 3.5 µs when both polled. So a side that expects an answer soon
/// looks for it for a bounded time first, and only then sleeps in `poll`. Never on a single processor, where
/// polling would only keep the peer from running.
package struct SpinBudget: Sendable, Equatable {
    /// How long to poll, in nanoseconds (0: sleep at once).
    package var nanoseconds: UInt64

    /// No polling.
    package static let none = SpinBudget(nanoseconds: 0)

    /// A client waiting for keychaind's answer to a quick request (``awaiting(_:)``): long enough for a lookup or a signature (about 0.1 ms of the
    /// daemon's work), short beside anything slower (a passcode's stretching, a durable write).
    package static let reply = SpinBudget.onMultiprocessor(microseconds: 250)

    /// keychaind waiting for a connection's next request right after answering one: a client that asks in a loop
    /// asks again within microseconds; one that does not costs the daemon this much processor time per request.
    package static let nextRequest = SpinBudget.onMultiprocessor(microseconds: 60)

    /// A client waiting for the answer to `request`: ``reply`` for one the daemon carries out in about a tenth of a
    /// millisecond; none for one that writes durably, may stretch a passcode, syncs or registers (milliseconds at
    /// least: polling would only burn the client's processor). Every case is named, so a new request is decided here.
    package static func awaiting(_ request: DaemonRequest) -> SpinBudget {
        switch request {
        case .backend(let request): request.isItemWrite || request.mayStretchPasscode ? .none : .reply
        case .hello, .ping, .describe, .listApps, .subscribe: .reply
        case .registerApp, .unregisterApp, .sync, .beginWriteSession, .endWriteSession: .none
        }
    }

    /// `microseconds` where more than one processor is online, else none.
    package static func onMultiprocessor(microseconds: UInt64) -> SpinBudget {
        sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? SpinBudget(nanoseconds: microseconds * 1000) : .none
    }
}

/// keychaind's wait for a connection's next message: it polls briefly (``SpinBudget/nextRequest``) while the
/// client asks again soon after each answer, as a client that asks in a loop does, and sleeps at once after a client
/// that took longer, so an idle connection costs the daemon no polling.
package struct NextMessageWait: Sendable {
    private var budget = SpinBudget.nextRequest

    package init() {}

    /// Waits at most `timeout` for the next message on `socket` (``SeqPacketSocket/awaitMessage(timeout:spinning:)``).
    package mutating func await(on socket: SeqPacketSocket, timeout: TimeInterval) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        let arrived = socket.awaitMessage(timeout: timeout, spinning: budget)
        let waited = DispatchTime.now().uptimeNanoseconds - start
        budget = waited <= 2 * SpinBudget.nextRequest.nanoseconds ? .nextRequest : .none
        return arrived
    }
}

extension SeqPacketSocket {
    /// Whether something comes to read within `budget`, looking without sleeping (then the caller sleeps in
    /// ``awaitMessage(timeout:)``). Yields the processor between looks, so a runnable peer on the same processor runs.
    package func pollBriefly(_ budget: SpinBudget) -> Bool {
        guard budget.nanoseconds > 0 else { return false }
        let end = DispatchTime.now().uptimeNanoseconds + budget.nanoseconds
        repeat {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 0) > 0 { return true }
            sched_yield()
        } while DispatchTime.now().uptimeNanoseconds < end
        return false
    }
}
