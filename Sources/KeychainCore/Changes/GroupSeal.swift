import Foundation

/// Seals the access group of each change record under a key derived from the device key, so the change feed can
/// name and filter groups in every lock state — as a locked keychain may reveal them (DESIGN §9) — while the
/// database file alone still names none (the item rows keep only the group's blind-index hash).
///
/// The seal binds the record's sequence and item UUID: a group moved to another record fails to open.
struct GroupSeal {
    private let key: SecretKey

    /// The seal whose key derives from the keychain's integrity key (itself from the device key).
    init(integrityKey: SecretKey) throws(EngineError) {
        key = try KeyedHash.deriveKey(from: integrityKey, context: "swift-keychain change groups v1")
    }

    /// Seals `group` for the record of `sequence` about the item `uuid`.
    func seal(_ group: String, sequence: Int64, uuid: Data) throws(EngineError) -> Data {
        try AEAD.seal(Array(group.utf8), key: key, associatedData: Self.associatedData(sequence, uuid))
    }

    /// Opens what ``seal(_:sequence:uuid:)`` made for the same record; `errSecDecode` when it was altered or moved.
    func open(_ sealed: Data, sequence: Int64, uuid: Data) throws(EngineError) -> String {
        let bytes = try AEAD.open(sealed, key: key, associatedData: Self.associatedData(sequence, uuid))
        guard let group = String(validating: bytes, as: UTF8.self) else {
            throw .decode("the access group of change \(sequence) is not UTF-8")
        }
        return group
    }

    private static func associatedData(_ sequence: Int64, _ uuid: Data) -> [UInt8] {
        var bytes: [UInt8] = Array("grp1".utf8)
        bytes.appendLittleEndian(sequence)
        bytes.appendLengthPrefixed(uuid)
        return bytes
    }
}
