import Foundation
import KeychainCore

/// Seals and opens item versions (DESIGN §12).
///
/// Format 3 (written now): the item's binary content (``ItemContent/binary``), padded (``RecordPadding``), sealed
/// straight under the sync class key of an epoch, with a random 192-bit nonce (XChaCha20-Poly1305: random nonces
/// are safe for far more versions than a circle writes under one key). Formats 1 and 2 (read still): a random item
/// key per version, wrapped by the class key, and the item's JSON padded to 256 bytes sealed under the item key.
///
/// The per-version key protected nothing the class key does not: it was wrapped by the class key alone, lived as
/// long as its version, and no rotation rewraps it (an exclusion or rekey starts a new epoch whose new class keys
/// seal what is written next; what was written before stays under the old ones, readable by whoever held them,
/// then as now). Dropping it saves 72 bytes and an AEAD per version.
///
/// The associated data binds the payload to the item's UUID, the epoch, the key class, the author and the clock,
/// so a payload moved to another item or version fails to open.
enum ItemSealing {
    /// Seals `content` under the class key its accessibility needs (or `keyClass`: tests seal under the wrong one
    /// to see a receiver refuse it), in format 3.
    static func seal(
        _ content: ItemContent, uuid: UUID, keys: EpochKeys, author: String, clock: HybridTime,
        under keyClass: SyncKeyClass? = nil
    ) throws(SyncError) -> SealedVersion {
        let keyClass = keyClass ?? content.keyClass
        guard let classKey = keys.classKeys[keyClass] else {
            throw SyncError(.damaged, "epoch \(keys.id) has no \(keyClass.rawValue) key")
        }
        let context = self.context(uuid, keys.id, keyClass, author, clock)
        return try keychain("cannot seal item \(uuid)") { () throws(EngineError) -> SealedVersion in
            SealedVersion(
                uuid: uuid, epoch: keys.id, keyClass: keyClass, wrappedKey: nil,
                payload: try AEAD.seal(RecordPadding.pad(content.binary), key: classKey, associatedData: context))
        }
    }

    /// Opens a version sealed by ``seal(_:uuid:keys:author:clock:under:)``, or by formats 1 and 2 (those carry a
    /// wrapped item key), read from the record `name`.
    static func open(
        _ version: SealedVersion, keys: EpochKeys, author: String, clock: HybridTime, name: String
    ) throws(SyncError) -> ItemContent {
        guard let keyClass = version.keyClass, let payload = version.payload, let classKey = keys.classKeys[keyClass]
        else { throw SyncError(.damaged, "the version of item \(version.uuid) in \(name) lacks its key or payload") }
        do {
            guard let wrappedKey = version.wrappedKey else {
                let context = self.context(version.uuid, keys.id, keyClass, author, clock)
                var padded: [UInt8] = []
                try AEAD.open(payload, key: classKey, associatedData: context, into: &padded)
                return try ItemContent(binary: padded, range: 0..<(try RecordPadding.contentCount(of: padded)))
            }
            let context = legacyContext(version.uuid, keys.id, keyClass, author, clock)
            let itemKey = try AEAD.open(key: wrappedKey, under: classKey, associatedData: context + Array("|key".utf8))
            let padded = [UInt8](try AEAD.open(payload, key: itemKey, associatedData: context + Array("|item".utf8)))
            let range = try Padding.payload(of: padded)
            return try JSONDecoder().decode(ItemContent.self, from: Data(padded[range]))
        } catch {
            throw SyncError(
                .damaged, "the version of item \(version.uuid) in \(name) by \(author) does not open: \(error)")
        }
    }

    /// Format 3's associated data: a label, then the UUID's 16 bytes, the epoch's number (8 bytes, little-endian)
    /// and creator, the key class, the author (each after its `UInt32` length) and the clock (8 bytes).
    static func context(
        _ uuid: UUID, _ epoch: EpochID, _ keyClass: SyncKeyClass, _ author: String, _ clock: HybridTime
    ) -> [UInt8] {
        var bytes = Array("swift-keychain sync item v3".utf8)
        bytes.append(0)
        bytes.appendUUID(uuid)
        bytes.appendLittleEndian(Int64(epoch.number))
        bytes.appendLengthPrefixedUTF8(epoch.creator)
        bytes.appendLengthPrefixedUTF8(keyClass.rawValue)
        bytes.appendLengthPrefixedUTF8(author)
        bytes.appendLittleEndian(clock.rawValue)
        return bytes
    }

    /// Formats 1 and 2's associated data (the wrapped key's and the payload's add a suffix each).
    private static func legacyContext(
        _ uuid: UUID, _ epoch: EpochID, _ keyClass: SyncKeyClass, _ author: String, _ clock: HybridTime
    ) -> [UInt8] {
        Array(
            "swift-keychain sync item v1|\(uuid.uuidString)|\(epoch.number)|\(epoch.creator)|\(keyClass.rawValue)|\(author)|\(clock.rawValue)"
                .utf8)
    }
}
