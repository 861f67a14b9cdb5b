import Foundation
import KeychainCore
import KeychainWire
import Synchronization

/// One client connection, served by a thread of its own: the handshake, then each message's sender resolved to a
/// principal (per message: a connection handed to another process, or kept across an `exec`, carries no identity
/// with it), the request carried out and answered. A `subscribe` turns the connection into a notice channel.
package final class ClientConnection: Sendable {
    let socket: SeqPacketSocket
    /// The uid of the process that opened the connection: what the limits count it against.
    private let owner: UInt32
    let dispatcher: RequestDispatcher
    private let activity: IdleLock
    let limits: UserLimits
    /// Held while a reply or a notice is sent: notices come from the engine's notifier thread.
    private let sending = Mutex(())

    package init(
        socket: SeqPacketSocket, owner: UInt32, dispatcher: RequestDispatcher, activity: IdleLock, limits: UserLimits
    ) {
        self.socket = socket
        self.owner = owner
        self.dispatcher = dispatcher
        self.activity = activity
        self.limits = limits
    }

    /// What to do after a message.
    enum Next {
        case serve
        case end
        case notify(ChangeObservation)
    }

    /// Serves the connection until the client closes it, breaks the protocol, or says nothing for the idle
    /// timeout. Each message is received and carried out during one of the owner's turns
    /// (``UserLimits/requests``), and a passcode stretched during one more (``UserLimits/passcodeChecks``).
    package func serve() {
        defer { socket.close() }
        let options = limits.options
        // A client that stops reading holds its thread no longer than the idle timeout (its sends then fail).
        try? socket.setTimeouts(receive: options.handshakeTimeout, send: options.idleTimeout)
        guard handshake() else { return }
        try? socket.setTimeouts(receive: options.idleTimeout, send: options.idleTimeout)
        var wait = NextMessageWait()
        while true {
            if !wait.await(on: socket, timeout: options.idleTimeout) {
                // Idle: the client may send no more (its next send fails at once, so it knows to connect again);
                // what it sent already is still answered, then the connection ends.
                socket.shutDownReading()
            }
            switch limits.requests.during(owner, serveMessage) {
            case .serve: continue
            case .end: return
            case .notify(let observation):
                defer { observation.cancel() }
                // A notice channel waits for no request, and accepts nothing more: it lasts until the client goes.
                try? socket.setTimeouts(receive: nil, send: options.idleTimeout)
                while (try? socket.receive()) != nil {}
                return
            }
        }
    }

    /// Receives one message and answers it.
    private func serveMessage() -> Next {
        let received: (message: [UInt8], sender: MessageSender?)?
        do throws(EngineError) {
            received = try socket.receive()
        } catch {
            send(.failure(error))  // oversized, cut or stalled: the stream of packets cannot be trusted any more
            return .end
        }
        guard let received else { return .end }
        // The request may hold a passcode or a secret: its bytes are wiped once it is decoded (or refused).
        defer { received.message.wipe() }
        guard let sender = received.sender else {
            send(.failure(EngineError(.missingEntitlement, "the message carries no credentials")))
            return .end
        }
        let envelope: DaemonEnvelope
        do throws(EngineError) {
            envelope = try DaemonCoding.decode(DaemonEnvelope.self, from: received.message)
        } catch {
            send(.failure(error))
            return .serve
        }
        let principal: Principal
        do throws(EngineError) {
            principal = try self.principal(of: envelope, sentBy: sender)
        } catch {
            send(.failure(error))
            return .serve
        }
        if case .beginWriteSession = envelope.request { return serveWriteSession(envelope, principal) }
        if case .subscribe = envelope.request {
            do throws(EngineError) {
                let observation = try subscribe(envelope, principal)
                send(.backend(.done))
                return .notify(observation)
            } catch {
                send(.failure(error))
                return .serve
            }
        }
        if let uid = try? dispatcher.targetUser(of: envelope, from: principal) { activity.touch(uid) }
        let size = received.message.count
        if envelope.request.mayStretchPasscode {
            send(limits.passcodeChecks.during(owner) { dispatcher.reply(to: envelope, from: principal, size: size) })
        } else {
            // Progress goes out on this connection before the answer, for a request that asked for it; no other
            // request pays for the closure.
            var progress: ((DaemonReply) -> Void)?
            if case .sync(_, reportsProgress: true) = envelope.request { progress = { [self] in send($0) } }
            send(dispatcher.reply(to: envelope, from: principal, size: size, progress: progress))
        }
        return .serve
    }

    /// Who sent `envelope`: its sender, or the process a registered service asks for; root may name the app it acts
    /// as.
    func principal(of envelope: DaemonEnvelope, sentBy sender: MessageSender) throws(EngineError) -> Principal {
        var principal = Principal.resolve(sender: sender, registry: dispatcher.registry)
        if let forwarded = envelope.forwarded {
            principal = try Principal.resolve(forwarded: forwarded, by: principal, registry: dispatcher.registry)
        }
        if principal.isRoot, let caller = envelope.caller { principal.caller = caller }
        return principal
    }

    /// The first message must be `hello` with this protocol's version, within the handshake timeout. It may come
    /// without credentials: it grants nothing, and a socket activator that listens without `SO_PASSCRED`
    /// (`systemd-socket-activate`) queues the first client's hello before the daemon turns credentials on; every
    /// later message needs them.
    private func handshake() -> Bool {
        let timeout = limits.options.handshakeTimeout
        guard socket.awaitMessage(timeout: timeout) else {
            limits.refuse(
                socket,
                EngineError(
                    .notAvailable,
                    "the connection said no hello within \(DaemonOptions.text(seconds: timeout)) s (keychaind "
                        + "--handshake-timeout \(DaemonOptions.text(seconds: timeout)))"))
            return false
        }
        let received = try? socket.receive()
        // A version-1 client speaks JSON: it is told, in its own form, which version this daemon speaks.
        if let received, DaemonCoding.isVersion1(received.message) {
            let refusal = DaemonCoding.version1Refusal(of: received.message)
            sending.withLock { _ in _ = try? socket.send(refusal) }
            return false
        }
        guard let received, let envelope = try? DaemonCoding.decode(DaemonEnvelope.self, from: received.message)
        else {
            send(.failure(EngineError(.param, "a keychaind connection must start with hello")))
            return false
        }
        guard case .hello(let version) = envelope.request, version == DaemonCoding.version else {
            send(
                .failure(
                    EngineError(
                        .param,
                        "this keychaind speaks protocol version \(DaemonCoding.version); the client sent \(envelope.request)"
                    )))
            return false
        }
        send(.welcome(version: DaemonCoding.version))
        return true
    }

    /// Notices of the changes the principal may see, and of no others: a notice for every write would tell one app
    /// when another writes. On each of the engine's notices, the feed is read from where the last one left it
    /// (a cursor the client never sees) and a notice is sent only when a change of the caller's is among them.
    private func subscribe(_ envelope: DaemonEnvelope, _ principal: Principal) throws(EngineError) -> ChangeObservation
    {
        let engine = try dispatcher.keychains.engine(for: dispatcher.targetUser(of: envelope, from: principal))
        let cursor = Mutex(try engine.latestChangeSequence())
        let caller = principal.caller
        return try engine.observeChanges { [weak self] in
            let concernsCaller = cursor.withLock { cursor in
                while true {
                    do throws(EngineError) {
                        let batch = try engine.changes(since: cursor, for: caller, limit: Engine.maximumChangeBatch)
                        cursor = batch.cursor
                        if !batch.changes.isEmpty { return true }
                        if !batch.hasMore { return false }
                    } catch {
                        // Compacted past the cursor, or refused: what changed is unknown, so say something did.
                        cursor = (try? engine.latestChangeSequence()) ?? cursor
                        return true
                    }
                }
            }
            if concernsCaller { self?.notify() }
        }
    }

    /// Sends a reply, then wipes its bytes (it may hold an item's secret or a file key). One too large to send
    /// becomes a failure naming the limit: a client is never left waiting for a reply that does not come. A client
    /// that does not take it within the idle timeout is cut off.
    func send(_ reply: DaemonReply) {
        let bytes: [UInt8]
        do throws(EngineError) {
            bytes = try DaemonCoding.encode(reply)
        } catch {
            let refusal = EngineError(
                .dataTooLarge,
                "the reply is larger than \(SeqPacketSocket.messageLimit) bytes (48 MiB), the most one keychaind "
                    + "message carries: ask for fewer items at a time, or for their attributes alone (\(error.message))"
            )
            guard let failure = try? DaemonCoding.encode(DaemonReply.failure(refusal)) else { return }
            bytes = failure
        }
        defer { bytes.wipe() }
        sending.withLock { _ in
            do throws(EngineError) {
                try socket.send(bytes)
            } catch {
                socket.shutDown()
            }
        }
    }

    /// Tells a subscriber its feed may have grown, unless its queue is full: the notices it has not read yet say
    /// the same, and the engine's notifier, which sends this, must not wait for a client.
    private func notify() {
        guard let notice = try? DaemonCoding.encode(DaemonReply.changed) else { return }
        sending.withLock { _ in
            guard socket.canSendNow else { return }
            _ = try? socket.send(notice)
        }
    }
}
