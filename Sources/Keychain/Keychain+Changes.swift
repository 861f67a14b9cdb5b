import KeychainCore

/// The change stream: this process's writes to items, as an `AsyncSequence`.
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

    /// Registers an observer that passes on the changes `query` matches for this identity, as the engine would
    /// return them to it. An update is passed on when the item matched before or after it.
    private func observe<Value: StoredItemValue>(
        _ query: ItemQuery, as type: Value.Type
    ) throws(KeychainError) -> KeychainChanges<Value> {
        let caller = try identity.get().caller
        let (stream, continuation) = AsyncStream.makeStream(
            of: KeychainChange<Value>.self, bufferingPolicy: .bufferingNewest(KeychainChanges<Value>.bufferLimit))
        let id = connection.observe { records in
            for record in records {
                let matches = query.matches(record.item, for: caller)
                switch record.kind {
                case .added where matches:
                    continuation.yield(.added(Value(reading: record.item)))
                case .updated where matches || record.previous.map { query.matches($0, for: caller) } == true:
                    continuation.yield(.updated(Value(reading: record.item)))
                case .removed where matches:
                    continuation.yield(.removed(Value(reading: record.item)))
                default:
                    break
                }
            }
        }
        let hub = connection.changes
        continuation.onTermination = { _ in hub.remove(id) }
        return KeychainChanges(stream: stream, connection: connection)
    }
}
