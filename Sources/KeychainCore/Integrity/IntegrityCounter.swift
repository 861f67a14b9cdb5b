import Foundation

/// The database's change counter, sealed with a keyed hash: the newest sequence when it was last written (at a
/// compaction or the migration; the live counter is the newest change record's), how many sequence numbers have no
/// change record (compacted away, or never recorded before the change log existed), the horizon
/// (every change after it has its record), and the last sequence written before rows bound their sequence into
/// their associated data (the legacy ceiling).
///
/// One row (`integrity`, id 1), rewritten in the transaction of each compaction. An edited row fails its hash:
/// ``load(from:key:)`` then throws `errSecDecode`.
struct IntegrityCounter: Equatable {
    var sequence: Int64
    var compacted: Int64
    var horizon: Int64
    var legacyCeiling: Int64

    /// Reads and authenticates the counter.
    static func load(from database: Database, key: SecretKey) throws(EngineError) -> IntegrityCounter {
        guard let (counter, mac) = try stored(in: database) else {
            throw .decode("the keychain's change counter is missing: the database was damaged")
        }
        guard let mac, KeyedHash.equal(mac, try counter.mac(key: key)) else {
            throw .decode("the keychain's change counter failed authentication: the database was altered or damaged")
        }
        return counter
    }

    /// The stored counter and its hash, unchecked (the migration seals what it made; everything else loads).
    static func stored(in database: Database) throws(EngineError) -> (counter: IntegrityCounter, mac: Data?)? {
        try database.first("SELECT seq, compacted, horizon, legacy_ceiling, mac FROM integrity WHERE id = 1") {
            (
                IntegrityCounter(
                    sequence: $0.integer(0), compacted: $0.integer(1), horizon: $0.integer(2),
                    legacyCeiling: $0.integer(3)),
                $0.blob(4)
            )
        }
    }

    /// Writes the counter with its hash (inside the caller's write transaction).
    func save(to database: Database, key: SecretKey) throws(EngineError) {
        try database.run(
            "UPDATE integrity SET seq = ?, compacted = ?, horizon = ?, legacy_ceiling = ?, mac = ? WHERE id = 1",
            [
                .integer(sequence), .integer(compacted), .integer(horizon), .integer(legacyCeiling),
                .blob(try mac(key: key)),
            ])
    }

    private func mac(key: SecretKey) throws(EngineError) -> Data {
        var input: [UInt8] = Array("integrity1".utf8)
        input.appendLittleEndian(sequence)
        input.appendLittleEndian(compacted)
        input.appendLittleEndian(horizon)
        input.appendLittleEndian(legacyCeiling)
        return try KeyedHash.hash(input, key: key, outputByteCount: 16)
    }
}
