import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds on how long a keychaind connection waits: for the peer's next message, for a packet in the middle of
/// one, for room to send, and for a connection to be accepted. Without them a peer that stops reading or writing
/// holds the other side's thread for ever.
extension SeqPacketSocket {
    /// Sets how long one `recv` and one `send` (and `connect`, when the listener's backlog is full) may block;
    /// `nil` waits for ever. A call that waits longer fails with `EAGAIN`, which ``receive()`` and ``send(_:)``
    /// report as errSecNotAvailable naming the timeout.
    package func setTimeouts(receive: TimeInterval?, send: TimeInterval?) throws(EngineError) {
        for (option, seconds) in [(SO_RCVTIMEO, receive), (SO_SNDTIMEO, send)] {
            var value = Self.timeval(seconds)
            let set = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
            guard set == 0 else {
                throw EngineError(
                    .ioError, "cannot set a timeout on the keychaind socket: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Waits at most `timeout` seconds for something to read: a message, the peer's end, or an error (which
    /// ``receive()`` then reports), polling for `budget` first (``SpinBudget``). `false` when nothing came in time.
    package func awaitMessage(timeout: TimeInterval, spinning budget: SpinBudget = .none) -> Bool {
        if pollBriefly(budget) { return true }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let left = deadline > now ? Int32(min(Double(Int32.max), (Double(deadline - now) / 1e6).rounded(.up))) : 0
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, left)
            if ready > 0 { return true }
            if ready == 0 { return false }
            guard errno == EINTR else { return true }  // let receive() say what is wrong
        }
    }

    /// Whether a small packet can be sent now without waiting (the peer's queue has room).
    package var canSendNow: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLOUT) != 0
    }

    /// Stops the peer from sending more: its next `send` fails with `EPIPE` (before any of it is queued), while
    /// what it queued already can still be received, then the end of the connection. Closing a connection whose
    /// queue holds unread messages would instead make the kernel report a reset to the peer, so the peer could not
    /// tell a message never read from one carried out.
    package func shutDownReading() {
        _ = shutdown(descriptor, Int32(SHUT_RD))
    }

    private static func timeval(_ seconds: TimeInterval?) -> timeval {
        guard let seconds, seconds > 0 else { return Glibc.timeval(tv_sec: 0, tv_usec: 0) }
        let whole = seconds.rounded(.down)
        return Glibc.timeval(
            tv_sec: Int(min(whole, Double(Int32.max))),
            tv_usec: min(999_999, Int(((seconds - whole) * 1e6).rounded(.up))))
    }
}
