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
            if let groups = caller.exactGroups { filter.groupHashes = try state.keybag.blindIndex.groups(groups) }
            var count = 0
            try state.database.readTransaction { () throws(EngineError) in
                try state.store.candidates(filter) { (row) throws(EngineError) -> Bool in
                    // The body's own failure ends the scan; a row that does not open is only skipped.
                    let opened: Void? = try state.sealer.openPlaintexts(row, keybag: state.keybag) {
                        (attributes, data) throws(EngineError) in try body(row.itemClass, attributes, data)
                    }
                    if opened != nil { count += 1 }
                    return true
                }
            }
            return count
        }
    }
}
