import Foundation

/// A write checked and ready to run under the engine's lock, inside a write transaction that its runner opens
/// (its own, or a group commit's).
typealias PreparedWrite<Result> = (EngineState) throws(EngineError) -> Result

extension BackendRequest {
    /// Whether a write may join a group whose transaction is already running (``Engine/commitTogether(_:joining:)``):
    /// its checks take none of the engine's locks (an add, a delete, an update that writes no new secret), so they
    /// can run under the lock the group holds.
    package var canJoinRunningGroup: Bool {
        switch self {
        case .add, .addBatch, .delete: true
        case .update(_, let changes): changes.data == nil
        default: false
        }
    }
}

extension Engine {
    /// Runs `body` under the lock in a write transaction of its own.
    func write<Result>(_ body: PreparedWrite<Result>) throws(EngineError) -> Result {
        try state.withLock { (state) throws(EngineError) -> Result in
            try state.checkServable()
            return try state.database.writeTransaction { () throws(EngineError) -> Result in try body(state) }
        }
    }

    /// Carries out several writes (``BackendRequest/isItemWrite``) — from different callers — in one transaction and one sync: each in a
    /// savepoint of its own, so a write that is refused changes nothing and leaves the others alone, and all the
    /// others become durable together when the transaction commits. keychaind gathers the writes that arrive
    /// together and acknowledges each only when this returns. A failed commit fails every write.
    ///
    /// `joining` is asked, under the lock once the writes so far have run, for writes that arrived meanwhile; they
    /// join the same transaction (until it returns none), so writes that come while a group is being written wait
    /// for no sync of their own. It must return only writes that ``BackendRequest/canJoinRunningGroup`` (their
    /// checks take no lock); any other is refused, as is a request that is not a write. Each result is the one the write would have had alone, run in
    /// this order: the results of `writes`, then those of the joined writes in the order they were given.
    package func commitTogether(
        _ writes: [(BackendRequest, Caller)], joining: () -> [(BackendRequest, Caller)] = { [] }
    ) -> [Result<WriteResult, EngineError>] {
        var results: [Result<WriteResult, EngineError>] = []
        var given = writes.count
        var prepared = writes.map(preparing)
        do throws(EngineError) {
            try state.withLock { (state) throws(EngineError) in
                try state.checkServable()
                try state.database.writeTransaction { () throws(EngineError) in
                    while !prepared.isEmpty {
                        for write in prepared {
                            switch write {
                            case .failure(let error): results.append(.failure(error))
                            case .success(let body): results.append(try Self.inSavepoint(body, state))
                            }
                        }
                        let joined = joining()
                        given += joined.count
                        prepared = joined.map { (write) -> Result<PreparedWrite<WriteResult>, EngineError> in
                            guard write.0.canJoinRunningGroup else {
                                return .failure(
                                    .internalError("a write that needs the lock to be checked joined a group"))
                            }
                            return preparing(write)
                        }
                    }
                }
            }
        } catch {
            return Array(repeating: .failure(error), count: given)
        }
        return results
    }

    /// A write checked outside the lock, ready to run in a savepoint, or why it is refused.
    private func preparing(_ write: (BackendRequest, Caller)) -> Result<PreparedWrite<WriteResult>, EngineError> {
        do throws(EngineError) {
            return .success(try preparedWrite(write.0, for: write.1))
        } catch {
            return .failure(error)
        }
    }

    /// Runs one write of a group in a savepoint: rolled back to it (sequence numbers included) when the write is
    /// refused. Throws only when the savepoint itself fails, which ends the whole group.
    private static func inSavepoint(
        _ body: PreparedWrite<WriteResult>, _ state: EngineState
    ) throws(EngineError) -> Result<WriteResult, EngineError> {
        let mark = state.store.changeLog.pendingMark
        // Prepared once and reused (`run`), as every statement of a write is: not parsed again for each write.
        try state.database.run("SAVEPOINT grouped")
        do throws(EngineError) {
            let result = try body(state)
            try state.database.run("RELEASE grouped")
            return .success(result)
        } catch {
            try state.database.run("ROLLBACK TO grouped")
            try state.database.run("RELEASE grouped")
            state.store.changeLog.restore(mark)
            return .failure(error)
        }
    }

    /// A write request checked outside the lock, ready to run inside a write transaction, whose result carries
    /// the items it wrote and the last change sequence it took.
    func preparedWrite(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> PreparedWrite<WriteResult>
    {
        let body: PreparedWrite<[Item]>
        switch request {
        case .add(let item):
            let add = preparedAdd(item, for: caller)
            body = { (state) throws(EngineError) in [try add(state)] }
        case .addBatch(let items): body = preparedBatch(items, for: caller)
        case .addOrUpdate(let item):
            let write = try preparedAddOrUpdate(item, for: caller)
            body = { (state) throws(EngineError) in [try write(state)] }
        case .update(let query, let changes):
            body = try preparedUpdate(query, with: changes, for: caller, release: try updateRelease(query, changes))
        case .delete(let query): body = try preparedDelete(query, for: caller)
        case .writeAll(let writes):
            let bodies = try writes.enumerated().map {
                (place, write) throws(EngineError) -> PreparedWrite<WriteResult> in
                guard write.isItemWrite, write.name != "writeAll" else {
                    throw .param("writeAll holds a \(write.name) (write \(place + 1)), which is not an item write")
                }
                return try preparedWrite(write, for: caller)
            }
            body = { (state) throws(EngineError) -> [Item] in
                var items: [Item] = []
                for (place, body) in bodies.enumerated() {
                    do throws(EngineError) {
                        items += try body(state).items
                    } catch {
                        throw EngineError(error.code, "write \(place + 1) of \(bodies.count): \(error.message)")
                    }
                }
                return items
            }
        case .generateKey(let generation):
            // Made before the write takes the lock: an RSA key takes a while.
            body = preparedBatch(try KeyOperations.current().generate(generation), for: caller)
        default: throw .param("\(request.name) is not a write")
        }
        return { (state) throws(EngineError) -> WriteResult in
            // A non-extractable key's bytes never leave the keychain, not even in the answer to its own write.
            let items = try body(state).map { item in
                var item = item
                if !ItemValidator.isExtractable(item.attributes) { item.data = nil }
                return item
            }
            let log = state.store.changeLog
            let sequence: Int64
            if let pending = log.pendingMark.sequence {
                sequence = pending
            } else {
                sequence = try log.newestSequence()
            }
            return WriteResult(items: items, changeSequence: sequence)
        }
    }
}
