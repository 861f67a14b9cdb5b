import Foundation
import KeychainCore
import Synchronization

/// One client connection, served by a thread of its own: the handshake, then each message's sender resolved to a
/// principal (per message: a connection handed to another process, or kept across an `exec`, carries no identity
/// with it), the request carried out and answered. A `subscribe` turns the connection into a notice channel.
final class ClientConnection: Sendable {
    private let socket: SeqPacketSocket
    private let dispatcher: RequestDispatcher
    private let activity: IdleLock
    /// Held while a reply or a notice is sent: notices come from the engine's notifier thread.
    private let sending = Mutex(())

    init(socket: SeqPacketSocket, dispatcher: RequestDispatcher, activity: IdleLock) {
        self.socket = socket
        self.dispatcher = dispatcher
        self.activity = activity
    }

    /// Serves the connection until the client closes it or breaks the protocol.
    func serve() {
        defer { socket.close() }
        guard handshake() else { return }
        var observation: ChangeObservation?
        defer { observation?.cancel() }
        while true {
            let received: (message: [UInt8], sender: MessageSender?)?
            do throws(EngineError) {
                received = try socket.receive()
            } catch {
                send(.failure(error))  // oversized or cut: the stream of packets cannot be trusted any more
                return
            }
            guard let received else { return }
            // The request may hold a passcode or a secret: its bytes are wiped once it is decoded (or refused).
            defer { received.message.wipe() }
            guard let sender = received.sender else {
                send(.failure(EngineError(.missingEntitlement, "the message carries no credentials")))
                return
            }
            if observation != nil { continue }  // a notice channel accepts nothing more
            let envelope: DaemonEnvelope
            do throws(EngineError) {
                envelope = try DaemonCoding.decode(DaemonEnvelope.self, from: received.message)
            } catch {
                send(.failure(error))
                continue
            }
            var principal = Principal.resolve(sender: sender, registry: dispatcher.registry)
            if principal.isRoot, let caller = envelope.caller { principal.caller = caller }
            if case .subscribe = envelope.request {
                do throws(EngineError) {
                    observation = try subscribe(envelope, principal)
                    send(.done)
                } catch {
                    send(.failure(error))
                }
                continue
            }
            if let uid = try? dispatcher.targetUser(of: envelope, from: principal) { activity.touch(uid) }
            send(dispatcher.reply(to: envelope, from: principal))
        }
    }

    /// The first message must be `hello` with this protocol's version. It may come without credentials: it grants
    /// nothing, and a socket activator that listens without `SO_PASSCRED` (`systemd-socket-activate`) queues the
    /// first client's hello before the daemon turns credentials on; every later message needs them.
    private func handshake() -> Bool {
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

    private func subscribe(_ envelope: DaemonEnvelope, _ principal: Principal) throws(EngineError) -> ChangeObservation
    {
        let engine = try dispatcher.keychains.engine(for: dispatcher.targetUser(of: envelope, from: principal))
        return try engine.observeChanges { [weak self] in self?.send(.changed) }
    }

    /// Sends a reply, then wipes its bytes (it may hold an item's secret or a file key).
    private func send(_ reply: DaemonReply) {
        guard let bytes = try? DaemonCoding.encode(reply) else { return }
        defer { bytes.wipe() }
        sending.withLock { _ in _ = try? socket.send(bytes) }
    }
}
