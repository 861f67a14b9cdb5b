import Foundation

/// Upgraded keychains, sealed again in place: rows an older build wrote carry an older row binding (``RowBinding``:
/// schema 1's covers neither the sequence nor the tombstone flag, the modification time or the attribute hashes;
/// schemas 2–4's not the access control flags). Sealing needs the item key, which needs the class key, so the
/// migration runs as soon as every class key is at hand: when a keychain without a passcode opens, or at the first
/// unlock of one with a passcode.
extension EngineState {
    /// How many rows one step of the rebinding reads (the new blobs of a step are held in memory).
    private static let rebindingBatch = 256

    /// Seals every row at or below the legacy ceiling again under the current binding (same item key, sequence and
    /// clear columns: no change is recorded), then lowers the sealed counter's legacy ceiling to 0, so no row opens
    /// under an older binding again (an old copy put back included). Nothing to do once the ceiling is 0, while
    /// the keybag is locked, or while the keychain is refused. All or nothing, in one write transaction.
    func rebindOlderRows() throws(EngineError) {
        guard sealer.legacyCeiling > 0, refusal == nil, keybag.isUnlocked else { return }
        let key = store.changeLog.key
        let lowered = try database.writeTransaction { () throws(EngineError) -> Bool in
            var counter = try IntegrityCounter.load(from: database, key: key)
            var complete = true
            var cursor: Int64 = 0
            var read = Self.rebindingBatch
            while counter.legacyCeiling > 0, read == Self.rebindingBatch {
                var sealed: [(rowID: Int64, metadata: Data, secret: Data?)] = []
                read = 0
                try database.query(
                    "SELECT \(StoredRow.columns) FROM items WHERE rowid > ? AND seq <= ? ORDER BY rowid LIMIT ?",
                    [.integer(cursor), .integer(counter.legacyCeiling), .integer(Int64(Self.rebindingBatch))]
                ) { (row: Row) throws(EngineError) -> Bool in
                    read += 1
                    cursor = row.integer(0)
                    // A row whose clear columns cannot be read is damage: verification reports it.
                    guard let stored = try? StoredRow(row) else { return true }
                    do throws(EngineError) {
                        if let new = try sealer.rebound(stored, keybag: keybag) {
                            sealed.append((stored.rowID, new.metadata, new.secret))
                        }
                    } catch {
                        complete = false  // its class key is not at hand: the ceiling stays for another time
                    }
                    return true
                }
                for row in sealed {
                    try database.run(
                        "UPDATE items SET metadata = ?, secret = COALESCE(?, secret) WHERE rowid = ?",
                        [.blob(row.metadata), row.secret.map { .blob($0) } ?? .null, .integer(row.rowID)])
                }
            }
            guard complete else { return false }
            if counter.legacyCeiling > 0 {
                counter.legacyCeiling = 0
                try counter.save(to: database, key: key)
            }
            return true
        }
        if lowered { sealer.legacyCeiling = 0 }
    }

    /// Raises the sealed counter's legacy ceiling to the newest change, inside the schema migration that brings a
    /// new row binding: every row written so far may carry an older one until ``rebindOlderRows()`` seals it again.
    static func markOlderBindings(_ database: Database, key: SecretKey) throws(EngineError) {
        var counter = try IntegrityCounter.load(from: database, key: key)
        let newest = try database.first("SELECT MAX(seq) FROM changes") { $0.isNull(0) ? 0 : $0.integer(0) } ?? 0
        guard newest > counter.legacyCeiling else { return }
        counter.legacyCeiling = newest
        try counter.save(to: database, key: key)
    }
}
