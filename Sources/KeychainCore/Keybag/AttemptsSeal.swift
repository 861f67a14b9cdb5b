import Foundation

/// The seal over the keybag's failed-passcode counter, its wait and the erase threshold (clear columns, which the
/// engine must read before any passcode is known): a keyed BLAKE2b tag under a key derived from the device key, over
/// those values, the keybag's identifier and the passcode's salt and cost. Resetting the counter with one `UPDATE`
/// then breaks the seal, and the keybag treats the passcode as suspended for the longest wait (``lockedOut(_:now:)``).
///
/// A keybag sealed this way says so in the associated data of its index key (which the device key alone wraps and
/// every open unwraps), so deleting the seal is detected too: only a keybag whose index key carries the older
/// associated data (one made before sealing) is read unsealed, and it is sealed at its next write.
///
/// The seal alone cannot tell an earlier sealed state written back (a copy of the keybag's row from before the
/// wrong passcodes) from the present. Where the device key is sealed by a TPM, the seal also covers the value of
/// the keychain's attempts counter in that TPM (``TPMCounterBinding``), which every new seal increments first: a
/// state sealed earlier carries an older value and no longer matches, so writing it back locks passcode entry out
/// like any other edit. An NV write per seal is affordable: seals are made only when the count, the wait, the
/// passcode or the erase threshold change (a wrong passcode already costs an Argon2id and a TPM HMAC), never per
/// item. A crash between the increment and the write of the new seal leaves the stored seal one value behind,
/// which reads as tampering: passcode entry waits the longest wait once (failing closed).
struct AttemptsSeal {
    private let key: SecretKey
    private let deviceKey: SecretKey
    /// The keychain's attempts counter in the TPM, when its device key is sealed by one.
    let counter: TPMCounterBinding?

    /// The seal of the keybags of this device key.
    init(deviceKey: SecretKey) throws(EngineError) {
        self.deviceKey = deviceKey
        key = try KeyedHash.deriveKey(from: deviceKey, context: "swift-keychain keybag attempts v1")
        counter = TPMCounterBinding.registered(for: deviceKey, purpose: .attempts)
    }

    /// Whether the record's counter, wait and erase threshold are the ones last sealed (always true for a keybag made
    /// before sealing, which has no seal yet), at the TPM counter's current value when the keychain has one.
    ///
    /// A seal made with a TPM counter carries the counter's value after the tag (40 bytes). Where the device key is
    /// a file (a keychain moved out of the TPM) that value is only authenticated, not compared: there is no TPM.
    func isAuthentic(_ record: KeybagRecord) throws(EngineError) -> Bool {
        guard record.sealsAttempts else { return true }
        guard let stored = record.attemptsSeal, let (tag, value) = Self.split(stored) else { return false }
        if let counter {
            guard let value, value == (try counter.value()) else { return false }
        }
        return KeyedHash.equal(tag, try self.tag(record, counterValue: value))
    }

    /// Whether the record's seal is sound but was not made at the counter's current value, on a counter new in this
    /// process (a keychain sealed by a TPM before counters were bound): ``Keybag/open(database:deviceKey:cost:)``
    /// seals it again, with the counter.
    func isSealedBeforeCounter(_ record: KeybagRecord) throws(EngineError) -> Bool {
        guard let counter, counter.isNew, record.sealsAttempts else { return false }
        // A seal that carries a counter value was made with the counter: the counter was undefined since, and
        // sealing again would accept an earlier count written back.
        guard let stored = record.attemptsSeal, let (_, value) = Self.split(stored), value == nil else { return false }
        return try isAuthenticIgnoringCounter(record)
    }

    /// Whether the seal matches the record's values, whatever counter value it carries (moving a keychain into the
    /// TPM checks this, then seals again with the counter).
    func isAuthenticIgnoringCounter(_ record: KeybagRecord) throws(EngineError) -> Bool {
        guard record.sealsAttempts else { return true }
        guard let stored = record.attemptsSeal, let (tag, value) = Self.split(stored) else { return false }
        return KeyedHash.equal(tag, try self.tag(record, counterValue: value))
    }

    /// The record with a fresh seal over its current values (after incrementing the TPM counter, when the keychain
    /// has one; without one, a counter value the previous seal carried is carried on, so that a keychain moved out
    /// of the TPM and back, or a process still holding the file key, agrees with the counter); a keybag made before
    /// sealing also gets its index key rewrapped with the associated data that says it is sealed.
    func sealing(_ record: KeybagRecord, indexKey: SecretKey) throws(EngineError) -> KeybagRecord {
        var sealed = record
        if !sealed.sealsAttempts {
            sealed.wrappedKeys[.index] = try AEAD.seal(
                key: indexKey, under: deviceKey,
                associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: .index, sealsAttempts: true))
            sealed.sealsAttempts = true
        }
        let value = try counter?.increment() ?? record.attemptsSeal.flatMap { Self.split($0)?.value }
        var seal = try tag(sealed, counterValue: value)
        if let value { withUnsafeBytes(of: value.littleEndian) { seal.append(contentsOf: $0) } }
        sealed.attemptsSeal = seal
        return sealed
    }

    /// A stored seal's tag and the counter value it carries (`nil` for a seal made without a TPM counter).
    private static func split(_ stored: Data) -> (tag: Data, value: UInt64?)? {
        switch stored.count {
        case 32: return (stored, nil)
        case 40:
            let value = stored.suffix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return (stored.prefix(32), value)
        default: return nil
        }
    }

    /// A record whose seal is broken, as it is treated: the true count and wait are unknown, so the count becomes
    /// at least the one that brings the longest wait, and that wait starts now.
    static func lockedOut(_ record: KeybagRecord, now: Date) -> KeybagRecord {
        var locked = record
        locked.failedAttempts = max(record.failedAttempts, PasscodePolicy.freeAttempts + PasscodePolicy.waits.count - 1)
        locked.retryAfter = now.addingTimeInterval(PasscodePolicy.waits.last ?? 3600)
        return locked
    }

    private func tag(_ record: KeybagRecord, counterValue: UInt64?) throws(EngineError) -> Data {
        var message = Array("swift-keychain keybag attempts v1".utf8) + Array(record.uuid)
        func append(_ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { message.append(contentsOf: $0) }
        }
        if let counterValue {
            message.append(contentsOf: Array("tpm".utf8))
            append(counterValue)
        }
        if let passcode = record.passcode {
            message.append(UInt8(passcode.salt.count))
            message.append(contentsOf: passcode.salt)
            append(passcode.cost.passes)
            append(UInt64(passcode.cost.memoryBytes))
        } else {
            message.append(0)
        }
        append(UInt64(bitPattern: Int64(record.failedAttempts)))
        append(record.retryAfter.timeIntervalSince1970.bitPattern)
        append(UInt64(bitPattern: Int64(record.eraseAfter)))
        return try KeyedHash.hash(message, key: key)
    }
}
