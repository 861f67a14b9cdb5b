import Foundation
import KeychainTPM

/// The keybag as stored: its identity, the passcode's salt and cost, the failure counter, and each class key
/// wrapped by the key that guards it.
struct KeybagRecord {
    /// The name of a stored key.
    enum KeyName: String, CaseIterable {
        case ak, ck, dk, aku, cku, dku, akpu
        /// Protection class B's X25519 private key (its public key is stored beside it, in clear).
        case classB = "b"
        /// The key of the blind indexes.
        case index

        /// Hashes the case, not the raw string (the keybag looks keys up on every row it opens).
        func hash(into hasher: inout Hasher) {
            hasher.combine(Self.allCases.firstIndex(of: self))
        }

        /// Whether the device key alone wraps it (available while locked) rather than the KEK.
        var isWrappedByDeviceKey: Bool {
            switch self {
            case .dk, .dku, .index: true
            case .ak, .ck, .aku, .cku, .akpu, .classB: false
            }
        }

        /// The stored key of a protection class.
        init(_ protectionClass: ProtectionClass) {
            switch protectionClass {
            case .whenUnlocked: self = .ak
            case .afterFirstUnlock: self = .ck
            case .always: self = .dk
            case .whenUnlockedThisDeviceOnly: self = .aku
            case .afterFirstUnlockThisDeviceOnly: self = .cku
            case .alwaysThisDeviceOnly: self = .dku
            case .whenPasscodeSetThisDeviceOnly: self = .akpu
            }
        }
    }

    /// The passcode's salt and Argon2id cost.
    struct Passcode {
        var salt: [UInt8]
        var cost: PasscodeCost
        /// The blob of the HMAC key in the TPM the passcode is entangled with (``PasscodeTPM``), stored as the
        /// `class_keys` row ``passcodeTPMKeyName``; `nil` for a passcode of a file-key keychain (or one set before).
        var tpmKey: [UInt8]? = nil
        /// The TPM that computes the HMAC, set by the keybag when it hands the parameters out (never stored).
        var tpm: TPMContext? = nil
    }

    var uuid: Data
    var passcode: Passcode?
    var failedAttempts: Int
    var retryAfter: Date
    var eraseAfter: Int
    var wrappedKeys: [KeyName: Data]
    var classBPublicKey: Data?
    /// The seal over the counter, wait and erase threshold (``AttemptsSeal``), stored as the `class_keys` row
    /// ``attemptsSealName``.
    var attemptsSeal: Data?
    /// The passcode factor (``PasscodeFactor``), while a passcode is set: stored as the `class_keys` row
    /// ``passcodeFactorName``.
    var passcodeFactor: PasscodeFactor?
    /// Whether the keybag is one whose attempts are sealed, as its index key's associated data says: set by the
    /// keybag when it opens the index key, not stored on its own.
    var sealsAttempts = false

    /// The `class_keys` row that holds ``attemptsSeal`` (a name no key has, so older builds skip it).
    static let attemptsSealName = "attempts"
    /// The `class_keys` row that holds ``passcodeFactor`` (a name no key has, so older builds skip it and the unlock
    /// never opens it).
    static let passcodeFactorName = "passcode-factor"
    /// The `class_keys` row that holds ``Passcode/tpmKey`` (a name no key has, so older builds skip it).
    static let passcodeTPMKeyName = "passcode-tpm"

    /// The associated data that binds a wrapped class key to this keybag and to its name; the index key's also says
    /// whether the keybag's attempts are sealed.
    static func associatedData(keybag uuid: Data, name: KeyName, sealsAttempts: Bool = false) -> [UInt8] {
        Array("swift-keychain class key v1".utf8) + Array(uuid) + Array(name.rawValue.utf8)
            + (sealsAttempts ? Array(" attempts sealed".utf8) : [])
    }

    /// Reads the keybag, or `nil` when the keychain has none yet.
    static func load(from database: Database) throws(EngineError) -> KeybagRecord? {
        let row = try database.first(
            """
            SELECT uuid, passcode_salt, passcode_passes, passcode_memory, failed_attempts, retry_after, erase_after
            FROM keybag WHERE id = 1
            """
        ) { row in
            (
                uuid: row.blob(0) ?? Data(), salt: row.blob(1), passes: row.integer(2), memory: row.integer(3),
                failed: row.integer(4), retryAfter: row.real(5), eraseAfter: row.integer(6)
            )
        }
        guard let row else { return nil }
        var record = KeybagRecord(
            uuid: row.uuid,
            passcode: row.salt.map {
                Passcode(salt: Array($0), cost: PasscodeCost(passes: UInt64(row.passes), memoryBytes: Int(row.memory)))
            },
            failedAttempts: Int(row.failed), retryAfter: Date(timeIntervalSince1970: row.retryAfter),
            eraseAfter: Int(row.eraseAfter), wrappedKeys: [:], classBPublicKey: nil)
        try database.query("SELECT name, wrapped, public_key FROM class_keys") { row in
            let name = row.text(0)
            if let key = KeyName(rawValue: name), let wrapped = row.blob(1) {
                record.wrappedKeys[key] = wrapped
                if key == .classB { record.classBPublicKey = row.blob(2) }
            } else if name == attemptsSealName {
                record.attemptsSeal = row.blob(1)
            } else if name == passcodeFactorName, let wrapped = row.blob(1), let publicKey = row.blob(2) {
                record.passcodeFactor = PasscodeFactor(wrappedPrivateKey: wrapped, publicKey: publicKey)
            } else if name == passcodeTPMKeyName, let blob = row.blob(1) {
                record.passcode?.tpmKey = Array(blob)
            }
            return true
        }
        return record
    }

    /// Writes the keybag row and every wrapped key it holds (inside the caller's transaction). Keys it does not hold
    /// are left as stored: only ``deleteKey(_:from:)`` (passcode removal, for `akpu`) and ``deleteAllKeys(from:)``
    /// (an erase) delete wrapped class keys.
    func save(to database: Database) throws(EngineError) {
        try database.run(
            """
            INSERT OR REPLACE INTO keybag
                (id, uuid, passcode_salt, passcode_passes, passcode_memory, failed_attempts, retry_after, erase_after,
                 generation)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, COALESCE((SELECT generation FROM keybag WHERE id = 1), 0) + 1)
            """,
            [
                .blob(uuid), passcode.map { .blob(Data($0.salt)) } ?? .null,
                passcode.map { .integer(Int64($0.cost.passes)) } ?? .null,
                passcode.map { .integer(Int64($0.cost.memoryBytes)) } ?? .null,
                .integer(Int64(failedAttempts)), .real(retryAfter.timeIntervalSince1970), .integer(Int64(eraseAfter)),
            ])
        for name in KeyName.allCases {
            guard let wrapped = wrappedKeys[name] else { continue }
            try database.run(
                "INSERT OR REPLACE INTO class_keys (name, wrapped, public_key) VALUES (?, ?, ?)",
                [
                    .text(name.rawValue), .blob(wrapped),
                    name == .classB ? classBPublicKey.map { .blob($0) } ?? .null : .null,
                ])
        }
        try saveAttemptsSeal(to: database)
        if let passcodeFactor {
            try database.run(
                "INSERT OR REPLACE INTO class_keys (name, wrapped, public_key) VALUES (?, ?, ?)",
                [
                    .text(Self.passcodeFactorName), .blob(passcodeFactor.wrappedPrivateKey),
                    .blob(passcodeFactor.publicKey),
                ])
        } else {
            try database.run("DELETE FROM class_keys WHERE name = ?", [.text(Self.passcodeFactorName)])
        }
        if let tpmKey = passcode?.tpmKey {
            try database.run(
                "INSERT OR REPLACE INTO class_keys (name, wrapped) VALUES (?, ?)",
                [.text(Self.passcodeTPMKeyName), .blob(Data(tpmKey))])
        } else {
            try database.run("DELETE FROM class_keys WHERE name = ?", [.text(Self.passcodeTPMKeyName)])
        }
    }

    /// Whether any wrapped key is stored (a keychain whose keybag row is unreadable yet has keys is damaged).
    static func hasKeys(in database: Database) throws(EngineError) -> Bool {
        try database.first("SELECT EXISTS (SELECT 1 FROM class_keys)") { $0.integer(0) != 0 } ?? false
    }

    /// Deletes one wrapped key: only passcode removal does it, for `akpu`.
    static func deleteKey(_ name: KeyName, from database: Database) throws(EngineError) {
        try database.run("DELETE FROM class_keys WHERE name = ?", [.text(name.rawValue)])
    }

    /// Deletes every wrapped key: only an erase does it.
    static func deleteAllKeys(from database: Database) throws(EngineError) {
        try database.run("DELETE FROM class_keys")
    }

    /// Writes only the failure counter, its wait and the erase threshold, with their seal (and the index key, whose
    /// associated data says the keybag is sealed).
    func saveAttempts(to database: Database) throws(EngineError) {
        try database.run(
            "UPDATE keybag SET failed_attempts = ?, retry_after = ?, erase_after = ? WHERE id = 1",
            [
                .integer(Int64(failedAttempts)), .real(retryAfter.timeIntervalSince1970), .integer(Int64(eraseAfter)),
            ])
        if let index = wrappedKeys[.index] {
            try database.run(
                "INSERT OR REPLACE INTO class_keys (name, wrapped) VALUES (?, ?)",
                [.text(KeyName.index.rawValue), .blob(index)])
        }
        try saveAttemptsSeal(to: database)
    }

    private func saveAttemptsSeal(to database: Database) throws(EngineError) {
        guard let attemptsSeal else { return }
        try database.run(
            "INSERT OR REPLACE INTO class_keys (name, wrapped) VALUES (?, ?)",
            [.text(Self.attemptsSealName), .blob(attemptsSeal)])
    }
}
