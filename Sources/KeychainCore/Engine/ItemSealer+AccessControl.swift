import Foundation

/// How the sealer seals an item with access control (DESIGN §11): its secret column is an ``AccessEnvelope``, and
/// its sealed metadata's `accc` attribute carries the flags and the envelope's digest keyed by the item key.
struct AccessSealing {
    var constraint: AccessConstraint
    /// The item key to keep (an update keeps it: the envelope's secret key is derived from it).
    var itemKey: SecretKey?
    /// The envelope to keep as it is (an update that does not change the secret).
    var keptEnvelope: AccessEnvelope?
    /// For a new secret: its unlock secret and the entries that seal it to each factor.
    var lock: AccessLock.Sealing?
}

/// A constrained row, opened.
struct ConstrainedOpening {
    var attributes: ItemAttributes
    var data: Data?
    /// Whether the request leaves the item out (`kSecUseAuthenticationUISkip`).
    var isSkipped = false
    /// What an update needs to seal the item again: its item key, its envelope and, when released, its lock.
    var sealing: AccessSealing?
}

extension ItemSealer {
    /// What binds an envelope's entries and sealed secret to its item: the UUID and class.
    static func accessBinding(uuid: UUID, itemClass: ItemClass) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendUUID(uuid)
        bytes.appendUTF8(itemClass.rawValue)
        return bytes
    }

    /// The `accc` value a stored item's metadata carries: version, flags, then the envelope's keyed digest.
    static func storedAccessValue(_ constraint: AccessConstraint, digest: Data) -> AttributeValue {
        .data((constraint.attributeValue.dataValue ?? Data()) + digest)
    }

    /// Seals the secret of a constrained item into its envelope and returns it with its digest (keyed by the item
    /// key now in `scratch`).
    func sealEnvelope(
        _ access: AccessSealing, data: Data, binding: [UInt8], itemKey: SecretKey
    ) throws(EngineError) -> (AccessEnvelope, Data) {
        let envelope: AccessEnvelope
        if let kept = access.keptEnvelope {
            envelope = kept
        } else if let lock = access.lock {
            let secretKey = try AccessLock.secretKey(itemKey: itemKey, unlockSecret: lock.unlockSecret)
            envelope = AccessEnvelope(
                entries: lock.entries,
                sealedSecret: try AEAD.seal(
                    Padding.pad(data), key: secretKey,
                    associatedData: Array("swift-keychain access secret v1".utf8) + binding))
        } else {
            throw .internalError("a constrained item is sealed with neither its envelope nor its lock")
        }
        return (envelope, try KeyedHash.hash(envelope.encoded(), key: itemKey))
    }

    /// Opens a row with access control: its attributes always (they need no factor), its data when asked and the
    /// factors allow, and what an update needs when `keepsSealing` is set. Returns `nil` when `matches` refuses the
    /// attributes: it is asked before anything else is opened, so only an item the query matches may ask for the
    /// user's authentication.
    func openConstrained(
        _ row: StoredRow, keybag: Keybag, data: Bool, keepsSealing: Bool, release: FactorRelease?,
        where matches: (ItemAttributes) -> Bool
    ) throws(EngineError) -> ConstrainedOpening? {
        let (opened, _) = try open(row, keybag: keybag, attributes: true, data: false)
        guard var attributes = opened, let stored = attributes[.accessControl]?.dataValue, stored.count == 5 + 32,
            let secret = row.secret
        else {
            throw .decode("the stored item \(row.persistentReference) lacks its access control: it was altered")
        }
        let constraint = try AccessConstraint(attributeValue: .data(stored.prefix(5)))
        guard constraint.flags.rawValue == row.accessFlags else {
            throw .decode("the stored item \(row.persistentReference)'s access control column was altered")
        }
        attributes[.accessControl] = constraint.attributeValue
        guard matches(attributes) else { return nil }
        // The item key again (the open above zeroed it), to check the envelope's digest and open it.
        let itemKey = try SecretKey.zeroed()
        var associatedData: [UInt8] = []
        row.keyAssociatedData(into: &associatedData)
        try AEAD.open(
            key: row.wrappedKey, under: try keybag.key(for: row.protectionClass), associatedData: associatedData,
            into: itemKey)
        guard KeyedHash.equal(try KeyedHash.hash(secret, key: itemKey), Data(stored.suffix(32))) else {
            throw .decode(
                "the stored item \(row.persistentReference)'s sealed secret is not its own: it was altered or moved")
        }
        let envelope = try AccessEnvelope(decoding: secret)
        var opening = ConstrainedOpening(attributes: attributes)
        if keepsSealing {
            opening.sealing = AccessSealing(constraint: constraint, itemKey: itemKey, keptEnvelope: envelope)
        }
        guard data else { return opening }
        let binding = Self.accessBinding(uuid: row.uuid, itemClass: row.itemClass)
        guard
            let unlockSecret = try (release ?? FactorRelease.none(keybag)).unlockSecret(
                of: envelope, constraint, binding: binding, item: row.persistentReference)
        else {
            opening.isSkipped = true
            return opening
        }
        let secretKey = try AccessLock.secretKey(itemKey: itemKey, unlockSecret: unlockSecret)
        var plaintext: [UInt8] = []
        defer { Sodium.wipe(&plaintext) }
        do throws(EngineError) {
            try AEAD.open(
                envelope.sealedSecret, key: secretKey,
                associatedData: Array("swift-keychain access secret v1".utf8) + binding, into: &plaintext)
        } catch {
            throw .decode("the stored item \(row.persistentReference)'s secret failed authentication: it was altered")
        }
        opening.data = Data(plaintext[try Padding.payload(of: plaintext)])
        if keepsSealing {
            opening.sealing?.lock = AccessLock.Sealing(
                constraint: constraint, unlockSecret: unlockSecret, entries: envelope.entries)
        }
        return opening
    }
}

extension FactorRelease {
    /// A request that brought no authentication: constrained items need the user.
    static func none(_ keybag: Keybag) -> FactorRelease {
        FactorRelease(authentication: nil, deviceKey: keybag.deviceKey, keychainHasPasscode: keybag.hasPasscode)
    }
}
