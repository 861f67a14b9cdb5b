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

/// A backend that counts a backup's items without opening them, for the count an archive's header announces
/// before its items are listed.
package protocol KeychainBackupCensus {
    /// The census of the items `caller` may read, or `nil` when it cannot be told without opening every item (then
    /// the items are listed and counted).
    func backupCensus(for caller: Caller) throws(EngineError) -> BackupCensus?
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
            var hashes: [Data] = []
            for group in groups { hashes.append(try state.keybag.blindIndex.group(group)) }
            filter.groupHashes = hashes
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
}
