import Foundation

/// How the keybag's keys are wrapped: the KEK, the class keys under it or under the device key, the index key
/// (whose associated data also says whether the keybag's attempts are sealed), and a new keybag.
extension Keybag {
    /// Opens every key the KEK wraps. `ak` opens first: if it fails, the passcode is wrong.
    static func openGuardedKeys(
        of record: KeybagRecord, with kek: SecretKey
    ) throws(EngineError) -> [KeybagRecord.KeyName: SecretKey] {
        var keys: [KeybagRecord.KeyName: SecretKey] = [:]
        keys[.ak] = try unwrap(.ak, from: record, with: kek)
        for name in KeybagRecord.KeyName.allCases where !name.isWrappedByDeviceKey && name != .ak {
            guard record.wrappedKeys[name] != nil else { continue }
            do {
                keys[name] = try unwrap(name, from: record, with: kek)
            } catch {
                throw EngineError(.invalidKeychain, "the keybag's \(name.rawValue) key is damaged")
            }
        }
        return keys
    }

    /// Wraps every KEK-guarded key of `keys` into `record` under `kek` (a key missing from `keys` is left out).
    static func rewrap(
        _ keys: [KeybagRecord.KeyName: SecretKey], into record: inout KeybagRecord, with kek: SecretKey
    ) throws(EngineError) {
        for name in KeybagRecord.KeyName.allCases where !name.isWrappedByDeviceKey {
            record.wrappedKeys[name] = try keys[name].map { (key: SecretKey) throws(EngineError) -> Data in
                try AEAD.seal(
                    key: key, under: kek, associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: name))
            }
        }
    }

    static func unwrap(
        _ name: KeybagRecord.KeyName, from record: KeybagRecord, with wrappingKey: SecretKey
    ) throws(EngineError) -> SecretKey {
        guard let wrapped = record.wrappedKeys[name] else {
            throw EngineError(.invalidKeychain, "the keybag has no \(name.rawValue) key")
        }
        return try AEAD.open(
            key: wrapped, under: wrappingKey,
            associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: name))
    }

    /// Opens the index key, and records in `record` whether its associated data says the attempts are sealed.
    static func openIndexKey(of record: inout KeybagRecord, deviceKey: SecretKey) throws(EngineError) -> SecretKey {
        guard let wrapped = record.wrappedKeys[.index] else {
            throw EngineError(.invalidKeychain, "the keybag has no index key")
        }
        let sealed = KeybagRecord.associatedData(keybag: record.uuid, name: .index, sealsAttempts: true)
        if let key = try? AEAD.open(key: wrapped, under: deviceKey, associatedData: sealed) {
            record.sealsAttempts = true
            return key
        }
        // A keybag made before its attempts were sealed.
        let key = try AEAD.open(
            key: wrapped, under: deviceKey,
            associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: .index))
        record.sealsAttempts = false
        return key
    }

    /// KEK = keyed BLAKE2b(device key, passcode key); without a passcode, derived from the device key alone.
    static func keyEncryptionKey(deviceKey: SecretKey, passcodeKey: SecretKey?) throws(EngineError) -> SecretKey {
        try KeyedHash.deriveKey(
            from: deviceKey,
            context: passcodeKey == nil ? "swift-keychain kek v1 no passcode" : "swift-keychain kek v1",
            secretInput: passcodeKey)
    }

    /// A new keybag with random class keys, no passcode, and its attempts sealed.
    static func fresh(deviceKey: SecretKey) throws(EngineError) -> KeybagRecord {
        defer { Sodium.wipeStack() }
        var record = KeybagRecord(
            uuid: Data(try RandomBytes.make(count: 16)), passcode: nil, failedAttempts: 0, retryAfter: .distantPast,
            eraseAfter: 0, wrappedKeys: [:], classBPublicKey: nil)
        let kek = try keyEncryptionKey(deviceKey: deviceKey, passcodeKey: nil)
        let classB = try KeyAgreementKeyPair.generate()
        record.classBPublicKey = classB.publicKey
        let indexKey = try SecretKey.random()
        for name in KeybagRecord.KeyName.allCases where name != .akpu {
            let key = name == .classB ? classB.privateKey : name == .index ? indexKey : try SecretKey.random()
            record.wrappedKeys[name] = try AEAD.seal(
                key: key, under: name.isWrappedByDeviceKey ? deviceKey : kek,
                associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: name))
        }
        return try AttemptsSeal(deviceKey: deviceKey).sealing(record, indexKey: indexKey)
    }
}
