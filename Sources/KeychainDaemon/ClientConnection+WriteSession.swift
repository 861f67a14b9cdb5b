import Foundation
import KeychainCore
import KeychainWire

/// A write session (``DaemonRequest/beginWriteSession``): the connection's thread holds the sender's keychain in one
/// write transaction while the client streams adds, deletes and lookups into it, one message each, until it ends the
/// session. A restore through keychaind so writes a hundred thousand items all or nothing without either side
/// holding them all. The keychain's other writers wait meanwhile (its lock is held), as they do for an embedded
/// restore; a client that goes quiet for the idle timeout, closes, or breaks the protocol has its session rolled
/// back.
extension ClientConnection {
    /// Runs a session for the sender of `envelope`; answers `done` when it opens and when it ends.
    func serveWriteSession(_ envelope: DaemonEnvelope, _ principal: Principal) -> Next {
        let user: UInt32
        let engine: Engine
        do throws(EngineError) {
            user = try dispatcher.targetUser(of: envelope, from: principal)
            engine = try dispatcher.keychains.engine(for: user)
        } catch {
            send(.failure(error))
            return .serve
        }
        var abandoned = false
        do throws(EngineError) {
            try engine.withWriteSession { (session: EngineWriteSession) throws(EngineError) in
                send(.backend(.done))
                var wait = NextMessageWait()
                while true {
                    switch try serveStep(of: session, user: user, wait: &wait) {
                    case .more: continue
                    case .commit: return
                    case .abandon:
                        abandoned = true
                        // Thrown only so that the session is rolled back.
                        throw EngineError(.param, "the client ended the write session without committing")
                    }
                }
            }
        } catch {
            guard abandoned else {
                // Broken, stalled or refused as a whole: rolled back; the client is told if it still listens.
                send(.failure(EngineError(error.code, "the write session was rolled back: \(error.message)")))
                return .end
            }
        }
        // Committed, or (the client asked for nothing to be kept) rolled back.
        send(.backend(.done))
        return .serve
    }

    /// What the client's message asked of the session.
    private enum Step {
        case more
        case commit
        case abandon
    }

    /// Serves one message of the session: its end (to commit or abandon) or one more write or lookup. A write or
    /// lookup refused on its own is answered with its failure and the session goes on; anything that breaks the
    /// session throws.
    private func serveStep(
        of session: EngineWriteSession, user: UInt32, wait: inout NextMessageWait
    ) throws(EngineError) -> Step {
        let idle = limits.options.idleTimeout
        guard wait.await(on: socket, timeout: idle) else {
            throw EngineError(
                .notAvailable,
                "the client said nothing for \(DaemonOptions.text(seconds: idle)) s during a write session")
        }
        guard let received = try socket.receive() else {
            throw EngineError(.notAvailable, "the client closed the connection during a write session")
        }
        defer { received.message.wipe() }
        guard let sender = received.sender else {
            throw EngineError(.missingEntitlement, "the message carries no credentials")
        }
        let envelope = try DaemonCoding.decode(DaemonEnvelope.self, from: received.message)
        let principal = try principal(of: envelope, sentBy: sender)
        guard try dispatcher.targetUser(of: envelope, from: principal) == user else {
            throw EngineError(.param, "a write session writes one keychain: a message named another user's")
        }
        switch envelope.request {
        case .endWriteSession(let commit):
            return commit ? .commit : .abandon
        case .backend(let request) where request.canJoinRunningGroup:
            do throws(EngineError) {
                try dispatcher.quotas.admit(envelope.request, size: received.message.count, uid: user) {
                    () throws(EngineError) in try session.storageUsage()
                }
                send(.backend(.written(try session.write(request, for: principal.caller))))
            } catch {
                send(.failure(error))
            }
        case .backend(.copyMatching(let query)):
            do throws(EngineError) {
                send(.backend(.items(try session.attributesMatching(query, for: principal.caller))))
            } catch {
                send(.failure(error))
            }
        default:
            send(
                .failure(
                    EngineError(
                        .param,
                        "a write session takes adds, deletes, lookups and its end, not \(envelope.request.name)")))
        }
        return .more
    }
}
