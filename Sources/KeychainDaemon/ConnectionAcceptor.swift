import Foundation
import KeychainCore
import KeychainWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Accepts connections on the listening socket and serves each on a thread of its own — a thread that was already
/// running when the connection came, so starting one (an 8 MiB stack mapped, a clone, its setup: about 0.1 ms here)
/// is never on a client's path: a short command such as `security find-generic-password` connects, asks and leaves
/// in about a millisecond.
///
/// One thread at least always waits in `accept`. The thread that takes a connection starts another waiter when it
/// was the last, then serves its client; when done it waits again, unless enough others are waiting already, and
/// then it ends.
package final class ConnectionAcceptor: Sendable {
    private let listener: SeqPacketSocket
    private let serve: @Sendable (SeqPacketSocket) -> Void
    private let waiting = Mutex(0)
    /// Whether accepting fails now (out of descriptors): said once in the log, not at every retry.
    private let isRefusing = Mutex(false)
    /// The most threads kept waiting between bursts of connections.
    private static let spareLimit = 4

    package init(listener: SeqPacketSocket, serve: @escaping @Sendable (SeqPacketSocket) -> Void) {
        self.listener = listener
        self.serve = serve
    }

    /// Starts the first waiting thread, then waits forever (the daemon runs until it is killed).
    package func run() -> Never {
        startWaiter()
        while true { pause() }
    }

    private func startWaiter() {
        waiting.withLock { $0 += 1 }
        let thread = Thread { [self] in waitAndServe() }
        thread.name = "keychaind client"
        thread.start()
    }

    private func waitAndServe() {
        while true {
            let socket: SeqPacketSocket
            do throws(EngineError) {
                guard let accepted = try listener.accept() else { continue }
                socket = accepted
            } catch {
                // Out of descriptors or memory for a moment: the daemon stays up, and the connections wait in the
                // listener's queue until it can take them.
                let starts = isRefusing.withLock { (refusing) -> Bool in
                    defer { refusing = true }
                    return !refusing
                }
                if starts { log("\(error.message); trying again until it can") }
                usleep(20_000)
                continue
            }
            let recovers = isRefusing.withLock { (refusing) -> Bool in
                defer { refusing = false }
                return refusing
            }
            if recovers { log("accepting connections again") }
            let last = waiting.withLock { (count) -> Bool in
                count -= 1
                return count == 0
            }
            if last { startWaiter() }
            serve(socket)
            let ends = waiting.withLock { (count) -> Bool in
                guard count < Self.spareLimit else { return true }
                count += 1
                return false
            }
            if ends { return }
        }
    }
}
