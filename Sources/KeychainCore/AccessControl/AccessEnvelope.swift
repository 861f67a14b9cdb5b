import Foundation

/// The sealed secret of an item with access control, as its `secret` column holds it (DESIGN §11): the entries
/// that seal the item's unlock secret to each factor, then the secret sealed under a key derived from the item key
/// *and* the unlock secret. Opening it needs the class key (for the item key) and a factor (for the unlock secret).
///
/// Layout: version `1`, the entry count, each entry as its factor byte, a 16-bit length and its bytes, then the
/// sealed secret. The item's sealed metadata carries a digest of all of it keyed by the item key, so no part can be
/// swapped for another item's or an older version's.
struct AccessEnvelope: Equatable {
    /// One factor's seal of the unlock secret (or, when every factor is needed, of its share).
    struct Entry: Equatable {
        var factor: AccessFactor
        var payload: Data
    }

    var entries: [Entry]
    /// The secret, padded and sealed under ``AccessLock/secretKey(itemKey:unlockSecret:)``.
    var sealedSecret: Data

    private static let factorCodes: [AccessFactor: UInt8] = [.passcode: 1, .applicationPassword: 2]

    /// The column's bytes.
    func encoded() -> Data {
        var bytes: [UInt8] = [1, UInt8(entries.count)]
        for entry in entries {
            bytes.append(Self.factorCodes[entry.factor] ?? 0)
            bytes.appendLittleEndian(UInt16(entry.payload.count))
            bytes.append(contentsOf: entry.payload)
        }
        bytes.append(contentsOf: sealedSecret)
        return Data(bytes)
    }

    /// Reads the column's bytes; anything malformed is ``EngineError/Code/decode``.
    init(decoding column: some Collection<UInt8>) throws(EngineError) {
        let bytes = Array(column)
        guard bytes.count >= 2, bytes[0] == 1 else { throw .decode("an access-controlled secret has no envelope") }
        var offset = 2
        var entries: [Entry] = []
        for _ in 0..<Int(bytes[1]) {
            guard offset + 3 <= bytes.count,
                let factor = Self.factorCodes.first(where: { $0.value == bytes[offset] })?.key
            else { throw .decode("an access-controlled secret's envelope is damaged") }
            let length = Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8
            offset += 3
            guard offset + length <= bytes.count else {
                throw .decode("an access-controlled secret's envelope is truncated")
            }
            entries.append(Entry(factor: factor, payload: Data(bytes[offset..<offset + length])))
            offset += length
        }
        self.entries = entries
        self.sealedSecret = Data(bytes[offset...])
    }

    init(entries: [Entry], sealedSecret: Data) {
        self.entries = entries
        self.sealedSecret = sealedSecret
    }
}
