import Foundation
import KeychainCore
import KeychainWire
import Synchronization

/// The notice channel of ``DaemonClient/observeChanges(_:)``: a connection of its own, subscribed, read by one
/// thread that calls the handler on each notice. When the daemon goes away the thread connects again (every half
/// second, until stopped) and calls the handler once connected, so a reader catches up with what it missed.
final class DaemonSubscription: Sendable {
    private let client: DaemonClient
    private let handler: @Sendable () -> Void
    private struct State {
        var socket: SeqPacketSocket?
        var isStopped = false
    }
    private let state = Mutex(State())

    init(client: DaemonClient, handler: @escaping @Sendable () -> Void) {
        self.client = client
        self.handler = handler
    }

    /// Subscribes now (so a daemon that is down is reported at once), then follows on a thread.
    func start() throws(EngineError) {
        let socket = try subscribe()
        state.withLock { $0.socket = socket }
        let thread = Thread { [self] in run(socket) }
        thread.name = "swift-keychain keychaind notices"
        thread.start()
    }

    /// Stops following: the reading thread wakes and ends.
    func stop() {
        let socket = state.withLock { (state) -> SeqPacketSocket? in
            state.isStopped = true
            return state.socket
        }
        socket?.shutDown()
    }

    private func subscribe() throws(EngineError) -> SeqPacketSocket {
        let socket = try client.open()
        try socket.send(
            DaemonCoding.encode(DaemonEnvelope(user: client.user, forwarded: client.forwarded, request: .subscribe)))
        guard let received = try socket.receive() else {
            throw EngineError(.notAvailable, "keychaind at \(client.socketPath) closed the notice channel")
        }
        if case .failure(let error) = try DaemonCoding.decode(DaemonReply.self, from: received.message) { throw error }
        // Notices come when something changes, not within a timeout: the reader waits for them as long as it takes.
        try socket.setTimeouts(receive: nil, send: client.timeout)
        return socket
    }

    private func run(_ first: SeqPacketSocket) {
        var socket: SeqPacketSocket? = first
        while !state.withLock({ $0.isStopped }) {
            guard let current = socket else {
                Thread.sleep(forTimeInterval: 0.5)
                socket = try? subscribe()
                if let socket {
                    let stopped = state.withLock { (state) -> Bool in
                        state.socket = socket
                        return state.isStopped
                    }
                    if stopped { socket.shutDown() } else { handler() }
                }
                continue
            }
            if (try? current.receive()) != nil {
                handler()
            } else {
                socket = nil  // closed or failed: connect again
            }
        }
    }
}
