import Foundation

extension Engine {
    /// Uses the one private key a query finds, inside the keychain: the key item is opened as a read of its secret
    /// is (its protection class must be available, its access control satisfied), its bytes go to the installed key
    /// layer (`KeyOperations`) and only the operation's result comes back.
    public func useKey(_ query: ItemQuery, _ use: KeyUse, for caller: Caller) throws(EngineError) -> Data {
        guard query.itemClass == .key || query.persistentReference?.itemClass == .key else {
            throw .param("a key use needs a query of class keys (kSecClassKey)")
        }
        var keyQuery = query
        keyQuery.returning = [.attributes, .data]
        let release = try query.authentication != nil ? factorRelease(query.authentication) : nil
        return try KeyOperations.honoringForgets { () throws(EngineError) -> Data in
            try useOneKey(keyQuery, use, release: release, for: caller)
        }
    }

    /// The key use itself: the one key's item found and opened, then the key layer's work on its bytes.
    private func useOneKey(
        _ keyQuery: ItemQuery, _ use: KeyUse, release: FactorRelease?, for caller: Caller
    ) throws(EngineError) -> Data {
        let result = try search(keyQuery, limit: .upTo(2), release: release, for: caller)
        guard result.matches.count == 1, let match = result.matches.first, let attributes = match.attributes,
            let data = match.data
        else {
            throw .param("a key use needs a query that finds exactly one key; this one finds \(result.matches.count)")
        }
        let isPrivate = attributes[.keyClass] == .integer(1)
        guard isPrivate || use.operation == .publicKey else {
            throw .param("\(use.algorithm) needs a private key; the query found a public one")
        }
        return try KeyOperations.current().perform(use, key: data, attributes: attributes)
    }
}
