import Foundation
import KeychainCore
import KeychainWire

/// Write sessions through keychaind (``DaemonRequest/beginWriteSession``): a connection of their own, not the
/// pool's, on which the daemon holds the keychain in one transaction until the session ends.
extension DaemonClient: KeychainWriteSessions {
    package func withWriteSession<Result>(
        _ body: (any KeychainWriteSession) throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        let session = DaemonWriteSession(client: self, socket: try open())
        defer { session.socket.close() }
        _ = try session.exchange(.beginWriteSession, as: nil)
        let result: Result
        do throws(EngineError) {
            result = try body(session)
        } catch {
            // Nothing is kept: said to the daemon, which would roll back anyway once the connection closes.
            _ = try? session.exchange(.endWriteSession(commit: false), as: nil)
            throw error
        }
        _ = try session.exchange(.endWriteSession(commit: true), as: nil)
        return result
    }
}

/// One write session's connection.
private struct DaemonWriteSession: KeychainWriteSession {
    let client: DaemonClient
    let socket: SeqPacketSocket

    func write(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> WriteResult {
        guard case .backend(.written(let result)) = try exchange(.backend(request), as: caller) else {
            throw unexpected(request.name)
        }
        return result
    }

    func attributesMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item] {
        guard case .backend(.items(let items)) = try exchange(.backend(.copyMatching(query)), as: caller) else {
            throw unexpected("copyMatching")
        }
        return items
    }

    /// Sends `request` (as `caller`, which only root's requests carry) and returns the reply; a failure throws.
    func exchange(_ request: DaemonRequest, as caller: Caller?) throws(EngineError) -> DaemonReply {
        let message = try DaemonCoding.encode(
            DaemonEnvelope(user: client.user, caller: caller, forwarded: client.forwarded, request: request))
        defer { message.wipe() }
        try socket.send(message)
        // Each write or lookup of the session is carried out in its open transaction, without waiting for the disk;
        // only its end does.
        let budget: SpinBudget = if case .endWriteSession = request { .none } else { .reply }
        guard socket.awaitMessage(timeout: client.timeout, spinning: budget) else {
            throw EngineError(
                .notAvailable,
                "keychaind did not answer at \(client.socketPath) within \(Int(client.timeout.rounded(.up))) s during "
                    + "a write session; nothing of it is kept")
        }
        guard let received = try socket.receive() else {
            throw EngineError(
                .notAvailable,
                "keychaind at \(client.socketPath) closed the connection during a write session; nothing of it is kept")
        }
        defer { received.message.wipe() }
        let reply = try DaemonCoding.decode(DaemonReply.self, from: received.message)
        if case .failure(let error) = reply { throw error }
        return reply
    }

    private func unexpected(_ what: String) -> EngineError {
        EngineError(.internalComponent, "keychaind answered \(what) in a write session with a reply of another kind")
    }
}
