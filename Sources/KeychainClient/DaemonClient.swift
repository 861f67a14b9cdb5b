import Foundation
import KeychainCore
import KeychainWire
import Synchronization

/// A ``KeychainBackend`` served by keychaind over its socket: every request of the seam is one message and one
/// reply, and the daemon — not this client — decides who is calling, from the kernel's credentials on each message (the
/// `caller` arguments are not sent).
///
/// While the daemon is down every call throws ``EngineError/Code/notAvailable`` naming the socket; the next call
/// connects again by itself. A request that was sent when the connection broke is not repeated (it may have been
/// carried out); one whose connection was found closed before it was sent (the daemon closes idle connections) is
/// sent once more on a new one. Threads of one process call at once, each on a connection of a small pool. No call
/// waits for the daemon longer than ``timeout``: one that would is errSecNotAvailable saying so.
package final class DaemonClient: KeychainBackend {
    /// The daemon's socket.
    package let socketPath: String
    /// Another user's keychain to reach (root only), or `nil` for the caller's own.
    package let user: UInt32?
    /// The process this client asks for (a registered service speaking for its callers: ``forwarding(_:)``).
    package let forwarded: ForwardedProcess?
    /// The longest a call waits for the daemon: to accept the connection, to take a request, to answer it.
    package let timeout: TimeInterval
    /// ``timeout``'s default: longer than any request takes (an unlock waiting its turn behind a few others of the
    /// same user's, a verification of a large keychain), short enough that a stuck daemon is reported.
    package static let defaultTimeout: TimeInterval = 30
    /// Connections with no request on them, ready for the next call.
    private let idleConnections = Mutex<[SeqPacketSocket]>([])
    /// How many idle connections the pool keeps at most.
    private static let idleLimit = 8
    /// Something kept alive as long as the client (a test's daemon process).
    private let retained: (any AnyObject & Sendable)?

    /// A client of the daemon at `socketPath`; connects on first use.
    package init(
        socketPath: String, user: UInt32? = nil, forwarded: ForwardedProcess? = nil,
        timeout: TimeInterval = DaemonClient.defaultTimeout, retaining retained: (any AnyObject & Sendable)? = nil
    ) {
        self.socketPath = socketPath
        self.user = user
        self.forwarded = forwarded
        self.timeout = timeout
        self.retained = retained
    }

    /// A client of the same daemon that asks for `process`: the daemon answers as it would that process, if this
    /// one is a registered service entitled to speak for others (else every request is errSecMissingEntitlement).
    package func forwarding(_ process: ForwardedProcess) -> DaemonClient {
        DaemonClient(socketPath: socketPath, user: user, forwarded: process, timeout: timeout, retaining: retained)
    }

    /// Whether a daemon answers at `path` now (connects, says hello, disconnects).
    package static func answers(at path: String) -> Bool {
        (try? handshake(SeqPacketSocket.connect(to: path, timeout: defaultTimeout), path: path)) != nil
    }

    // MARK: The seam

    /// Sends `request` and returns the daemon's reply: the caller goes along only for requests that act for one
    /// (the daemon ignores it from anyone but root, who may act as any app).
    package func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
        guard case .backend(let reply) = try call(.backend(request), as: request.actsForCaller ? caller : nil) else {
            throw unexpected(request.name)
        }
        return reply
    }

    package func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        let subscription = DaemonSubscription(client: self, handler: handler)
        try subscription.start()
        return ChangeObservation { subscription.stop() }
    }

    // MARK: The daemon's own requests

    /// Sends one of the daemon's own requests (registration, `describe`); `progress` hears the
    /// ``DaemonReply/progress(stage:done:total:)`` replies that come before the answer of a request that asked for
    /// them.
    package func send(
        _ request: DaemonRequest, progress: ((_ stage: Int, _ done: Int, _ total: Int) -> Void)? = nil
    ) throws(EngineError) -> DaemonReply {
        try call(request, progress: progress)
    }

    // MARK: Transport

    /// One request and its reply, on an idle connection of the pool or a new one (so threads of one process
    /// call at once, each on its own connection), which goes back to the pool after a whole exchange.
    ///
    /// The request's and the reply's bytes are wiped once used (they may hold a passcode or a secret).
    private func call(
        _ request: DaemonRequest, as caller: Caller? = nil,
        progress: ((_ stage: Int, _ done: Int, _ total: Int) -> Void)? = nil
    ) throws(EngineError) -> DaemonReply {
        let message = try DaemonCoding.encode(
            DaemonEnvelope(user: user, caller: caller, forwarded: forwarded, request: request))
        defer { message.wipe() }
        let socket: SeqPacketSocket
        if let idle = idleConnections.withLock({ $0.popLast() }) {
            do throws(EngineError) {
                try idle.send(message)
                socket = idle
            } catch {
                // An idle connection found closed before anything was sent (the daemon restarted): once more, on a
                // new one. Nothing was carried out.
                socket = try open(sending: message)
            }
        } else {
            socket = try open(sending: message)
        }
        var reply: DaemonReply
        repeat {
            let received: (message: [UInt8], sender: MessageSender?)?
            do throws(EngineError) {
                received = try receive(on: socket, spinning: .awaiting(request))
            } catch {
                socket.close()
                throw error
            }
            guard let received else {
                throw EngineError(
                    .notAvailable,
                    "keychaind at \(socketPath) closed the connection before answering; the request may or may not "
                        + "have been carried out")
            }
            defer { received.message.wipe() }
            reply = try DaemonCoding.decode(DaemonReply.self, from: received.message)
            // Progress comes only to a request that asked for it, before its answer.
            if case .progress(let stage, let done, let total) = reply, let progress { progress(stage, done, total) }
        } while progress != nil && reply.isProgress
        idleConnections.withLock { idle in
            if idle.count < Self.idleLimit { idle.append(socket) }
        }
        if case .failure(let error) = reply { throw error }
        return reply
    }

    /// A new connection, after the version handshake.
    func open() throws(EngineError) -> SeqPacketSocket {
        try open(sending: nil)
    }

    /// A new connection with `message` sent right behind the hello, before the welcome is read: the daemon reads
    /// them in order, so a short-lived client spends one round trip on its first request, not two.
    ///
    /// A daemon that refuses the hello (another protocol version) closes the connection with the request unread,
    /// and the kernel then resets it before its answer can be read; the request was not carried out, so the
    /// client asks again without one, which reads why (and, should the daemon accept now, sends the request then).
    private func open(sending message: [UInt8]?) throws(EngineError) -> SeqPacketSocket {
        let socket: SeqPacketSocket
        do throws(EngineError) {
            socket = try SeqPacketSocket.connect(to: socketPath, timeout: timeout)
        } catch {
            throw unavailable(error)
        }
        do throws(EngineError) {
            try socket.send(Self.hello)
            if let message { try socket.send(message) }
        } catch {
            // A daemon that refuses the connection (one of its limits) stops it taking more before it answers; the
            // answer says why.
            throw Self.refusal(on: socket) ?? unavailable(error)
        }
        guard let message else {
            return try Self.expectWelcome(try receive(on: socket, spinning: .reply), path: socketPath, on: socket)
        }
        guard socket.awaitMessage(timeout: timeout, spinning: .reply) else { throw noAnswer() }
        let welcome: (message: [UInt8], sender: MessageSender?)?
        do throws(EngineError) {
            welcome = try socket.receive()
        } catch {
            socket.close()
            let plain = try open(sending: nil)
            do throws(EngineError) { try plain.send(message) } catch { throw unavailable(error) }
            return plain
        }
        return try Self.expectWelcome(welcome, path: socketPath, on: socket)
    }

    private static var hello: [UInt8] {
        get throws(EngineError) {
            try DaemonCoding.encode(DaemonEnvelope(request: .hello(version: DaemonCoding.version)))
        }
    }

    @discardableResult
    private static func handshake(_ socket: SeqPacketSocket, path: String) throws(EngineError) -> SeqPacketSocket {
        try socket.send(hello)
        return try expectWelcome(socket, path: path)
    }

    /// Reads the daemon's answer to the hello: its welcome, or why it refuses.
    private static func expectWelcome(_ socket: SeqPacketSocket, path: String) throws(EngineError) -> SeqPacketSocket {
        let received: (message: [UInt8], sender: MessageSender?)?
        do throws(EngineError) {
            received = try socket.receive()
        } catch {
            throw unavailable(error, at: path)  // a reset connection: the daemon refused it (or died)
        }
        return try expectWelcome(received, path: path, on: socket)
    }

    /// The socket, when `received` (the answer to its hello) is the welcome; else why the daemon refuses.
    private static func expectWelcome(
        _ received: (message: [UInt8], sender: MessageSender?)?, path: String, on socket: SeqPacketSocket
    ) throws(EngineError) -> SeqPacketSocket {
        guard let received else {
            throw EngineError(.notAvailable, "keychaind at \(path) closed the connection during the handshake")
        }
        guard !DaemonCoding.isVersion1(received.message) else {
            throw EngineError(
                .notAvailable,
                "keychaind at \(path) speaks protocol version 1; this client speaks version \(DaemonCoding.version) "
                    + "(update keychaind)")
        }
        switch try DaemonCoding.decode(DaemonReply.self, from: received.message) {
        case .welcome: return socket
        case .failure(let error): throw error
        default:
            throw EngineError(.internalComponent, "keychaind at \(path) answered the handshake with something else")
        }
    }

    /// A call the daemon did not answer within ``timeout``.
    private func noAnswer() -> EngineError {
        EngineError(
            .notAvailable,
            "keychaind did not answer at \(socketPath) within \(Int(timeout.rounded(.up))) s; the request may or may "
                + "not have been carried out")
    }

    /// The next message on `socket`, waiting at most ``timeout`` for it (polling for `budget` first).
    private func receive(
        on socket: SeqPacketSocket, spinning budget: SpinBudget = .none
    ) throws(EngineError) -> (message: [UInt8], sender: MessageSender?)? {
        guard socket.awaitMessage(timeout: timeout, spinning: budget) else { throw noAnswer() }
        do throws(EngineError) {
            return try socket.receive()
        } catch {
            throw unavailable(error)
        }
    }

    /// The failure a daemon answered a connection it refused with, if it did.
    private static func refusal(on socket: SeqPacketSocket) -> EngineError? {
        guard socket.awaitMessage(timeout: 1), let received = try? socket.receive(),
            case .failure(let error)? = try? DaemonCoding.decode(DaemonReply.self, from: received.message)
        else { return nil }
        return error
    }

    private func unexpected(_ what: String) -> EngineError {
        EngineError(.internalComponent, "keychaind at \(socketPath) answered \(what) with a reply of another kind")
    }

    private func unavailable(_ error: EngineError) -> EngineError {
        Self.unavailable(error, at: socketPath)
    }

    /// errSecNotAvailable naming the socket, and why.
    private static func unavailable(_ error: EngineError, at path: String) -> EngineError {
        EngineError(.notAvailable, "keychaind is not available at \(path): \(error.message)")
    }
}
