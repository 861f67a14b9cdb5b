import Foundation

extension PostgresStore {
    /// Inserts the records in one transaction per 500 (one multi-row `INSERT … ON CONFLICT DO NOTHING`, one commit)
    /// when none of their names is taken; when one is, that transaction is rolled back and its records are written
    /// one ``putIfAbsent(_:_:)`` at a time up to the taken name, so that no record after it is stored.
    public func putAllIfAbsent(_ records: [(name: String, bytes: [UInt8])]) throws(SyncStoreError) -> Int {
        for record in records { try SyncStoreName.validate(record.name) }
        return try putInChunks(records, size: 500) { (chunk) throws(SyncStoreError) in try putChunk(chunk) }
    }

    /// Writes one chunk of ``putAllIfAbsent(_:)`` and returns how many of its records, from the first, were written.
    private func putChunk(_ chunk: ArraySlice<(name: String, bytes: [UInt8])>) throws(SyncStoreError) -> Int {
        var values: [String] = []
        var parameters: [PostgresConnection.Value] = []
        for record in chunk {
            values.append("($\(parameters.count + 1), $\(parameters.count + 2))")
            parameters.append(.text(record.name))
            parameters.append(.bytes(record.bytes))
        }
        let doing = "store \(chunk.count) records from \(SyncStoreName.quoted(chunk.first?.name ?? ""))"
        // Not retried on a fresh connection, as putIfAbsent(_:_:) is not: a lost commit may have stored them.
        let isWhole = try withConnection(retrying: false) { connection throws(SyncStoreError) -> Bool in
            try connection.execute("BEGIN", doing: doing)
            do throws(SyncStoreError) {
                let rows = try connection.execute(
                    "INSERT INTO keychain_sync_records (name, bytes) VALUES " + values.joined(separator: ", ")
                        + " ON CONFLICT (name) DO NOTHING", parameters, doing: doing)
                guard rows.affected == chunk.count else {
                    try connection.execute("ROLLBACK", doing: doing)
                    return false
                }
                try connection.execute("COMMIT", doing: doing)
                return true
            } catch {
                _ = try? connection.execute("ROLLBACK", doing: doing)
                throw error
            }
        }
        return isWhole ? chunk.count : try putEachIfAbsent(chunk)
    }
}
