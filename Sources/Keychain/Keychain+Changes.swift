import KeychainCore

/// The change stream: every writer's changes to items (this process's and other processes'), as an `AsyncSequence`.
extension Keychain {
    /// The changes to the key-value API's items: this keychain's service, access group and synchronizable flag.
    /// The item's ``GenericPassword/account`` is the key.
    public func changes() throws(KeychainError) -> KeychainChanges<GenericPassword> {
        try observe(valueQuery(nil), as: GenericPassword.self)
    }

    /// The changes to the generic passwords a query matches.
    public func changes(matching query: GenericPassword.Query) throws(KeychainError) -> KeychainChanges<GenericPassword>
    {
        try observe(query.itemQuery, as: GenericPassword.self)
    }

    /// The changes to the internet passwords a query matches.
    public func changes(
        matching query: InternetPassword.Query
    ) throws(KeychainError) -> KeychainChanges<InternetPassword> {
        try observe(query.itemQuery, as: InternetPassword.self)
    }

    /// Starts a stream of the changes `query` matches for this identity, as the engine would return them to it: a
    /// reader of the keychain's change feed, woken by this process's writes and by other processes'.
    private func observe<Value: StoredItemValue>(
        _ query: ItemQuery, as type: Value.Type
    ) throws(KeychainError) -> KeychainChanges<Value> {
        try perform("watching changes") { (connection, caller) throws(EngineError) -> KeychainChanges<Value> in
            let backend = try connection.backend()
            let (stream, continuation) = AsyncStream.makeStream(
                of: KeychainChange<Value>.self, bufferingPolicy: .bufferingNewest(KeychainChanges<Value>.bufferLimit))
            let follower = try ChangeFollower<Value>(
                backend: backend, caller: caller, query: query, continuation: continuation)
            let observation = try backend.observeChanges { follower.catchUp() }
            let hub = connection.changes
            let id = hub.add { follower.catchUp() }
            continuation.onTermination = { _ in
                hub.remove(id)
                observation.cancel()
            }
            return KeychainChanges(stream: stream, connection: connection)
        }
    }
}
