import Foundation

extension Engine {
    /// Reads every live item the caller's access groups hold and hands `body` its class, its encoded attributes
    /// (``AttributeCoder``'s form) and its secret, in insertion order: the least a backup must do per item (the
    /// rows from SQLite, the item key unwrapped, metadata and secret opened and authenticated), building no
    /// ``Item``. The backup bench's scan floor (issue 27) measures it. Both plaintexts are zeroed once `body`
    /// returns and must not be kept. Items with access control are left out (their data opens only with the user),
    /// and so are the rows that fail authentication; returns how many items `body` saw.
    package func scanPlaintexts(
        for caller: Caller,
        _ body: (ItemClass, _ attributes: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer) throws(EngineError)
            -> Void
    ) throws(EngineError) -> Int {
        try state.withLock { (state) throws(EngineError) -> Int in
            try state.checkServable()
            var filter = CandidateFilter()
            if let groups = caller.exactGroups {
                var hashes: [Data] = []
                for group in groups { hashes.append(try state.keybag.blindIndex.group(group)) }
                filter.groupHashes = hashes
            }
            var count = 0
            try state.database.readTransaction { () throws(EngineError) in
                try state.store.candidates(filter) { (row) throws(EngineError) -> Bool in
                    guard row.accessFlags == 0 else { return true }
                    // The body's own failure ends the scan; a row that fails authentication is only skipped.
                    var failure: EngineError?
                    do throws(EngineError) {
                        try state.sealer.openPlaintexts(row, keybag: state.keybag) {
                            (attributes, data) throws(EngineError) in
                            do throws(EngineError) {
                                try body(row.itemClass, attributes, data)
                            } catch {
                                failure = error
                            }
                        }
                    } catch  where error.code == .decode {
                        return true
                    }
                    if let failure { throw failure }
                    count += 1
                    return true
                }
            }
            return count
        }
    }
}
