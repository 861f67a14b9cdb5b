import Foundation
import KeychainCore

/// Each epoch's keys as this device keeps them: wrapped under the keychain's class keys (``SyncDevice``'s vault).
extension SyncDatabase {
    /// One epoch's wrapped keys.
    struct WrappedEpochKeys {
        var top: Data
        var whenUnlocked: Data
        var afterFirstUnlock: Data
    }

    /// Creates the table when missing (sync state made before it).
    func ensureEpochKeySchema() throws(SyncError) {
        try Self.sql("cannot extend the sync state") { () throws(EngineError) in
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS epoch_keys(
                    number INTEGER NOT NULL, creator TEXT NOT NULL, top BLOB NOT NULL, ak BLOB NOT NULL,
                    ck BLOB NOT NULL, PRIMARY KEY(number, creator)) WITHOUT ROWID;
                """)
        }
    }

    /// Keeps an epoch's wrapped keys (once: an epoch's keys never change).
    func saveEpochKeys(_ id: EpochID, top: Data, whenUnlocked: Data, afterFirstUnlock: Data) throws(SyncError) {
        try Self.sql("cannot write the sync state") { () throws(EngineError) in
            try database.run(
                "INSERT OR IGNORE INTO epoch_keys(number, creator, top, ak, ck) VALUES(?, ?, ?, ?, ?)",
                [
                    .integer(Int64(id.number)), .text(id.creator), .blob(top), .blob(whenUnlocked),
                    .blob(afterFirstUnlock),
                ]
            )
        }
    }

    /// Every kept epoch's wrapped keys.
    func epochKeys() throws(SyncError) -> [EpochID: WrappedEpochKeys] {
        var result: [EpochID: WrappedEpochKeys] = [:]
        try Self.sql("cannot read the sync state") { () throws(EngineError) in
            try database.query("SELECT number, creator, top, ak, ck FROM epoch_keys") { row in
                result[EpochID(number: Int(row.integer(0)), creator: row.text(1))] = WrappedEpochKeys(
                    top: row.blob(2) ?? Data(), whenUnlocked: row.blob(3) ?? Data(),
                    afterFirstUnlock: row.blob(4) ?? Data())
                return true
            }
        }
        return result
    }
}
