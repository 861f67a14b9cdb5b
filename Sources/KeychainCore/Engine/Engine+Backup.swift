import Foundation

/// How many of a caller's items a backup takes and leaves (``KeychainBackupCensus``).
package struct BackupCensus: Equatable, Sendable {
    /// Items a backup takes.
    package var migratable = 0
    /// Items of a ThisDeviceOnly class.
    package var thisDeviceOnly = 0
    /// Items with access control, and keys that are not extractable.
    package var boundToThisKeychain = 0
}

/// A backend that counts a backup's items without opening them (the count an archive's header announces before its
/// items are listed), and hands over the migratable ones as they are sealed in their rows, building no ``Item``.
package protocol KeychainBackupCensus {
    /// The census of the items `caller` may read, or `nil` when it cannot be told without opening every item (then
    /// the items are listed and counted, and ``backupPage(for:after:limit:_:)`` is not called).
    func backupCensus(for caller: Caller) throws(EngineError) -> BackupCensus?

    /// Hands `body` up to `limit` of the migratable items the census counted, after the cursor `after` (`nil`: from
    /// the start), each as its class, its attributes in ``AttributeCoder``'s form and its data, both zeroed once
    /// `body` returns. Returns the cursor of the next page, or `nil` after the last.
    func backupPage(
        for caller: Caller, after cursor: Int64?, limit: Int,
        _ body: (ItemClass, _ attributes: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer) throws(EngineError)
            -> Void
    ) throws(EngineError) -> Int64?
}

extension Engine: KeychainBackupCensus {
    /// The census from the rows' clear columns, which their seals authenticate: the protection class, the access
    /// control flags (non-zero exactly when the sealed attributes hold access control), the class, the access group's
    /// hash, and the item's latest change (a row that is not its item's latest version is left out, as a listing
    /// leaves it out). Only a key's attributes are opened (its extractability is sealed). `nil` for a caller whose
    /// access groups are wildcards: which groups it reads is told only by opening the attributes.
    package func backupCensus(for caller: Caller) throws(EngineError) -> BackupCensus? {
        guard let groups = caller.exactGroups else { return nil }
        return try state.withLock { (state) throws(EngineError) -> BackupCensus in
            try state.checkServable()
            var filter = CandidateFilter()
            filter.groupHashes = try state.keybag.blindIndex.groups(groups)
            var census = BackupCensus()
            try state.database.readTransaction { () throws(EngineError) in
                try state.store.candidates(filter) { (row) throws(EngineError) -> Bool in
                    guard row.latestChange == row.sequence else { return true }
                    if row.protectionClass.isThisDeviceOnly {
                        census.thisDeviceOnly += 1
                    } else if row.accessFlags != 0 {
                        census.boundToThisKeychain += 1
                    } else if row.itemClass == .key {
                        let opened: ItemAttributes?
                        do throws(EngineError) {
                            opened = try state.sealer.open(row, keybag: state.keybag, attributes: true, data: false).0
                        } catch  where error.code == .decode {
                            return true  // left out of the listing too
                        }
                        if let opened, ItemValidator.isExtractable(opened) {
                            census.migratable += 1
                        } else {
                            census.boundToThisKeychain += 1
                        }
                    } else {
                        census.migratable += 1
                    }
                    return true
                }
            }
            return census
        }
    }

    /// The migratable items by their rows, as the census counts them: a ThisDeviceOnly protection class or access
    /// control (clear columns their seals authenticate) leaves an item out, and a key whose sealed attributes say it
    /// is not extractable. Each page takes the engine's lock and a read transaction of its own, as the listing's
    /// pages do. A row that fails authentication is left out (the backup then finds fewer items than counted).
    package func backupPage(
        for caller: Caller, after cursor: Int64?, limit: Int,
        _ body: (ItemClass, _ attributes: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer) throws(EngineError)
            -> Void
    ) throws(EngineError) -> Int64? {
        guard let groups = caller.exactGroups else {
            throw .internalError("a caller with wildcard access groups is backed up through its listing")
        }
        guard !groups.isEmpty else { return nil }
        return try state.withLock { (state) throws(EngineError) -> Int64? in
            try state.checkServable()
            var filter = CandidateFilter()
            filter.groupHashes = try state.keybag.blindIndex.groups(groups)
            filter.afterRowID = cursor
            var handed = 0
            var last: Int64?
            var ended = true
            try state.database.readTransaction { () throws(EngineError) in
                try state.store.candidates(filter) { (row) throws(EngineError) -> Bool in
                    guard handed < limit else {
                        ended = false
                        return false
                    }
                    last = row.rowID
                    guard !row.protectionClass.isThisDeviceOnly else { return true }
                    // The body's own failure ends the backup; a row that does not open is only left out.
                    _ = try state.sealer.openPlaintexts(row, keybag: state.keybag) {
                        (attributes, data) throws(EngineError) in
                        if row.itemClass == .key {
                            // Attributes that do not decode leave the key out, as the census leaves it out.
                            guard let opened = try? AttributeCoder.decode(Data(attributes)),
                                ItemValidator.isExtractable(opened)
                            else { return }
                        }
                        try body(row.itemClass, attributes, data)
                        handed += 1
                    }
                    return true
                }
            }
            return ended ? nil : last
        }
    }
}
