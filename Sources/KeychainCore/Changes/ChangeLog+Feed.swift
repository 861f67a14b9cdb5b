import Foundation

extension ChangeLog {
    /// The records after `sequence`, oldest first, at most `limit`, each authenticated and with its access group
    /// opened (when it has one), in one read transaction; and the counter's horizon, for the resync check.
    ///
    /// Throws the feed's resync error when records after `sequence` may have been compacted away (it is below the
    /// horizon) or `sequence` is beyond the newest change (it is not this keychain's, or the database was rolled
    /// back and accepted).
    func records(after sequence: Int64, limit: Int) throws(EngineError) -> (records: [ChangeRecord], hasMore: Bool) {
        try database.readTransaction { () throws(EngineError) -> ([ChangeRecord], Bool) in
            let counter = try counter()
            let newest = try newestSequence()
            guard sequence >= counter.horizon, sequence <= newest else {
                throw EngineError.resyncNeeded(after: sequence, oldestAvailable: counter.horizon)
            }
            var records: [ChangeRecord] = []
            var failure: EngineError?
            try database.query(
                "SELECT \(ChangeRecord.columns), mac, grp FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
                [.integer(sequence), .integer(Int64(limit) + 1)]
            ) { (row: Row) throws(EngineError) -> Bool in
                guard var record = try authenticatedRecord(row, failure: &failure) else { return false }
                if let sealed = row.blob(10) {
                    record.accessGroup = try groupSeal.open(sealed, sequence: record.sequence, uuid: record.uuid)
                }
                records.append(record)
                return true
            }
            if let failure { throw failure }
            let hasMore = records.count > limit
            if hasMore { records.removeLast() }
            return (records, hasMore)
        }
    }

    /// The record of a row selected with ``ChangeRecord/columns`` and its `mac`, or `nil` with `failure` set when it
    /// fails its hash.
    func authenticatedRecord(_ row: Row, failure: inout EngineError?) throws(EngineError) -> ChangeRecord? {
        let record = ChangeRecord(row)
        guard try authenticates(record, mac: row.blob(9)) else {
            failure = .decode(
                "change \(record.sequence) of the keychain's change log failed authentication: the database was "
                    + "altered or damaged (`security verify-keychain` reports it)")
            return nil
        }
        return record
    }
}
