import Foundation

/// The tombstone rows older builds kept for deleted synchronizable items, with every sealed attribute and the
/// clear lookup hashes, forever (issue 21, item 12). Sync needs only the removal's change record, which each such
/// row's own record is, so the rows go when a keychain opens, with no new record.
extension EngineState {
    /// Deletes every tombstone row whose latest change record is its removal; a row whose tombstone flag was
    /// flipped by damage (its record says added or updated) stays, for verification to report.
    func dropTombstoneRows() throws(EngineError) {
        guard refusal == nil else { return }
        let condition = """
            tomb != 0 AND EXISTS (SELECT 1 FROM changes WHERE changes.uuid = items.uuid AND changes.seq = items.seq
                AND changes.kind = \(ChangeKind.removed.rawValue))
            """
        // A read first: only a keychain that holds tombstones takes the write lock.
        guard try database.first("SELECT 1 FROM items WHERE \(condition) LIMIT 1", [], { _ in true }) == true else {
            return
        }
        try database.writeTransaction { () throws(EngineError) in
            try database.run("DELETE FROM items WHERE \(condition)", [])
        }
    }
}
