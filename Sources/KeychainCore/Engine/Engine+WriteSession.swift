import Foundation

/// Writes and reads that run in one write transaction of the engine, for work too large to hand over as one
/// ``BackendRequest/writeAll(_:)`` (a restore of a hundred thousand items, streamed from its archive): each write
/// sees the ones before it, and they all become durable together, or none do.
///
/// A session is used only inside ``Engine/withWriteSession(_:)`` (never kept past it), which holds the engine's lock the whole time: other
/// callers of this engine wait, and other processes see none of its writes until it commits.
package struct EngineWriteSession: KeychainWriteSession {
    private let engine: Engine
    private let state: EngineState

    fileprivate init(engine: Engine, state: EngineState) {
        self.engine = engine
        self.state = state
    }

    /// Carries out an add, an add of several items or a delete in the session's transaction, in a savepoint of its
    /// own: a refused write changes nothing and the session goes on. Other writes (whose checks take the engine's
    /// lock, which the session holds) are refused.
    package func write(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> WriteResult {
        guard request.canJoinRunningGroup else {
            throw .param("a write session takes adds and deletes, not \(request.name)")
        }
        let body = try engine.preparedWrite(request, for: caller)
        let mark = state.store.changeLog.pendingMark
        try state.database.run("SAVEPOINT session")
        do throws(EngineError) {
            let result = try body(state)
            try state.database.run("RELEASE session")
            return result
        } catch {
            try state.database.run("ROLLBACK TO session")
            try state.database.run("RELEASE session")
            state.store.changeLog.restore(mark)
            throw error
        }
    }

    /// The keychain's usage now, the session's writes included (``Engine/storageUsage()``, which would wait for the
    /// lock the session holds).
    package func storageUsage() throws(EngineError) -> StorageUsage {
        try Engine.storageUsage(of: state.database)
    }

    /// The items a query matches, as ``KeychainBackend/copyMatching(_:for:)`` returns them, seeing the session's
    /// writes; items with access control are left out (nothing is asked of the user under the lock), and no data is
    /// returned.
    package func attributesMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item] {
        var query = query
        query.authentication = ItemAuthentication(interaction: .skipItems)
        let result = try state.search.run(
            query, for: caller, needs: .attributes, limit: (query.limit ?? .one).maximum)
        try Engine.checkFound(result, query)
        return result.matches.map { match in
            Item(
                itemClass: match.itemClass, attributes: match.attributes ?? [:], data: nil,
                persistentReference: PersistentReference(itemClass: match.itemClass, uuid: match.uuid))
        }
    }
}

/// Writes that run in one transaction of a keychain, embedded (``EngineWriteSession``) or keychaind's (over one
/// connection): what a streamed restore writes through.
package protocol KeychainWriteSession {
    /// Carries out an add, an add of several items or a delete; a refused write changes nothing and the session
    /// goes on.
    func write(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> WriteResult
    /// The items a query matches (attributes only), seeing the session's writes.
    func attributesMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item]
}

/// A backend that can run a ``KeychainWriteSession``: the engine, and keychaind's client.
package protocol KeychainWriteSessions {
    /// Runs `body` with a session whose writes commit together when it returns, and are rolled back when it throws.
    func withWriteSession<Result>(
        _ body: (any KeychainWriteSession) throws(EngineError) -> Result
    ) throws(EngineError) -> Result
}

extension Engine: KeychainWriteSessions {
    package func withWriteSession<Result>(
        _ body: (any KeychainWriteSession) throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        try withWriteSession { (session: EngineWriteSession) throws(EngineError) -> Result in try body(session) }
    }

    /// Runs `body` with a session whose writes commit together when it returns, and are rolled back when it throws
    /// (nothing of them is ever seen by another caller). The engine's lock is held meanwhile.
    package func withWriteSession<Result>(
        _ body: (EngineWriteSession) throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        try state.withLock { (state) throws(EngineError) -> Result in
            try state.checkServable()
            return try state.database.writeTransaction { () throws(EngineError) -> Result in
                let session = EngineWriteSession(engine: self, state: state)
                return try body(session)
            }
        }
    }
}
