import Foundation

/// The change log by primary key: what an exact lookup asks when no intact row answers its key, so that damage to
/// a row's clear columns (its tombstone flag, class, protection class or key hash changed, which moves the row out
/// of the index the lookup reads) is reported as `errSecDecode` for the item instead of hiding it.
extension ChangeLog {
    /// The item whose latest change record carries one of `primaryKeyHashes` and says it exists (an add or an
    /// update), of `protectionClass` when given, leaving out `excluding` (UUIDs whose rows answered); `nil` when the
    /// log knows no such item. A record that fails its hash is damage too.
    func existingItem(
        withPrimaryKeyIn primaryKeyHashes: [Data], protectionClass: ProtectionClass?, excluding: Set<Data>
    ) throws(EngineError) -> ChangeRecord? {
        guard !primaryKeyHashes.isEmpty else { return nil }
        let placeholders = Array(repeating: "?", count: primaryKeyHashes.count).joined(separator: ", ")
        var found: ChangeRecord?
        var failure: EngineError?
        try database.query(
            """
            SELECT \(ChangeRecord.columns), mac FROM changes AS latest
            WHERE pk IN (\(placeholders)) AND kind != \(ChangeKind.removed.rawValue)
                AND seq = (SELECT MAX(seq) FROM changes WHERE changes.uuid = latest.uuid)
            ORDER BY seq
            """, primaryKeyHashes.map { .blob($0) }
        ) { (row: Row) throws(EngineError) -> Bool in
            guard let record = try authenticatedRecord(row, failure: &failure) else { return false }
            guard !excluding.contains(record.uuid),
                protectionClass.map({ $0.rawValue == record.protectionClass }) ?? true
            else { return true }
            found = record
            return false
        }
        if let failure { throw failure }
        return found
    }

    /// Hashes again, inside the schema 5 migration, the records it gave a primary-key hash (the records of the rows
    /// as they were). A record whose hash fails without its new column keeps the failing hash: the migration never
    /// makes a damaged record look sound.
    static func sealPrimaryKeys(_ database: Database, key: SecretKey) throws(EngineError) {
        var resealed: [(Int64, Data)] = []
        try database.query("SELECT \(ChangeRecord.columns), mac FROM changes WHERE pk IS NOT NULL") {
            (row: Row) throws(EngineError) -> Bool in
            var record = ChangeRecord(row)
            let primaryKeyHash = record.primaryKeyHash
            record.primaryKeyHash = nil
            guard let mac = row.blob(9), KeyedHash.equal(mac, try record.mac(key: key)) else { return true }
            record.primaryKeyHash = primaryKeyHash
            resealed.append((record.sequence, try record.mac(key: key)))
            return true
        }
        for (sequence, mac) in resealed {
            try database.run("UPDATE changes SET mac = ? WHERE seq = ?", [.blob(mac), .integer(sequence)])
        }
    }
}

extension ChangeRecord {
    /// The persistent reference the record names, when its class and UUID are readable.
    var persistentReference: PersistentReference? {
        guard let itemClass = ItemClass(rawValue: itemClass), let uuid = uuid.withUnsafeBytes({ UUID(bytes: $0) })
        else { return nil }
        return PersistentReference(itemClass: itemClass, uuid: uuid)
    }
}
