import Foundation
import KeychainCore

/// One epoch's keys: the top-level key and the sync class keys it wraps.
///
/// A new epoch is made when the circle is created and whenever a device is excluded; its top-level key is sealed
/// to each member's X25519 key (``KeyShare``), never to an excluded device, so what is written under it stays
/// closed to that device.
struct EpochKeys: Sendable {
    let id: EpochID
    /// The top-level key, when this value holds it (a device keeps it wrapped, and unwraps it to share it).
    let topLevel: SecretKey?
    /// The class keys this value holds (a device keeps only `ck` in memory).
    let classKeys: [SyncKeyClass: SecretKey]

    /// A new epoch with fresh random keys, and its definition (the class keys wrapped by the top-level key).
    static func create(_ id: EpochID) throws(SyncError) -> (EpochKeys, EpochDefinition) {
        try keychain("cannot create the keys of epoch \(id)") {
            () throws(EngineError) -> (EpochKeys, EpochDefinition) in
            let topLevel = try SecretKey.random()
            var keys: [SyncKeyClass: SecretKey] = [:]
            var wrapped: [SyncKeyClass: Data] = [:]
            for keyClass in SyncKeyClass.allCases {
                let key = try SecretKey.random()
                keys[keyClass] = key
                wrapped[keyClass] = try AEAD.seal(
                    key: key, under: topLevel, associatedData: classKeyContext(id, keyClass))
            }
            return (
                EpochKeys(id: id, topLevel: topLevel, classKeys: keys), EpochDefinition(id: id, classKeys: wrapped)
            )
        }
    }

    /// Opens an epoch's class keys with its top-level key.
    static func open(_ definition: EpochDefinition, topLevel: SecretKey) throws(SyncError) -> EpochKeys {
        var keys: [SyncKeyClass: SecretKey] = [:]
        for keyClass in SyncKeyClass.allCases {
            guard let wrapped = definition.classKeys[keyClass] else {
                throw SyncError(.damaged, "epoch \(definition.id) lacks its \(keyClass.rawValue) class key")
            }
            do {
                keys[keyClass] = try AEAD.open(
                    key: wrapped, under: topLevel, associatedData: classKeyContext(definition.id, keyClass))
            } catch {
                throw SyncError(
                    .damaged, "the \(keyClass.rawValue) class key of epoch \(definition.id) does not open: \(error)")
            }
        }
        return EpochKeys(id: definition.id, topLevel: topLevel, classKeys: keys)
    }

    /// The top-level key sealed to a member.
    func share(with member: PublicIdentity, id recipient: String) throws(SyncError) -> KeyShare {
        guard let topLevel else { throw SyncError(.damaged, "epoch \(id)'s top-level key is not at hand") }
        let sealed = try keychain("cannot seal epoch \(id)'s key to device \(recipient)") {
            () throws(EngineError) -> Data in
            try PublicKeySeal.seal(
                key: topLevel, to: member.agreementKey, associatedData: Self.shareContext(id, recipient))
        }
        return KeyShare(epoch: id, recipient: recipient, sealed: sealed)
    }

    /// Opens a share sealed to this device.
    static func openShare(
        _ share: KeyShare, with agreement: KeyAgreementKeyPair, as device: String
    ) throws(SyncError) -> SecretKey {
        do {
            return try PublicKeySeal.open(
                share.sealed, with: agreement, associatedData: shareContext(share.epoch, device))
        } catch {
            throw SyncError(.damaged, "the key of epoch \(share.epoch) shared with this device does not open: \(error)")
        }
    }

    private static func classKeyContext(_ id: EpochID, _ keyClass: SyncKeyClass) -> [UInt8] {
        Array("swift-keychain sync class key v1|\(id.number)|\(id.creator)|\(keyClass.rawValue)".utf8)
    }

    private static func shareContext(_ id: EpochID, _ recipient: String) -> [UInt8] {
        Array("swift-keychain sync top-level key v1|\(id.number)|\(id.creator)|\(recipient)".utf8)
    }
}
