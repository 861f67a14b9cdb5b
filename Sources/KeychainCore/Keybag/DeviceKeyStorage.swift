import Foundation
import KeychainTPM

#if canImport(Glibc)
    import Glibc
#endif

/// Where a keychain's device key is kept (DESIGN §15): a plain file (`device.key` format 1), or sealed by a TPM
/// (format 2, `DeviceKeyTPM`). ``move(keychainAt:to:)`` moves an existing keychain's key from one to the other.
public enum DeviceKeyStorage: Sendable, Equatable {
    /// The key itself in `device.key` (0600): whoever copies the directory holds it.
    case file
    /// The key sealed by a TPM: `device.key` opens only on the TPM that sealed it.
    case tpm

    /// Where the device key of the keychain in `directory` is kept, read from `device.key`'s header (the TPM is not
    /// asked); ``EngineError/Code/noSuchKeychain`` when it has none.
    public static func current(in directory: URL) throws(EngineError) -> DeviceKeyStorage {
        let path = KeychainDirectory(url: directory).deviceKeyPath
        guard let file = try FileDescriptor<EngineError>.openIfExists(path, O_RDONLY | O_NOFOLLOW) else {
            throw EngineError(.noSuchKeychain, "no keychain (device key) in \(directory.path)")
        }
        return try file.readBytes(count: DeviceKeyTPM.magic.count) == DeviceKeyTPM.magic ? .tpm : .file
    }

    /// The TPM a sealed key is opened with in this process (the TCTI `KEYCHAIN_TPM` names, or the default device),
    /// or `nil` when none is configured.
    public static var configuredTPM: String? {
        TPMContext.configuredTCTI(environment: DeviceKeyTPM.configuredEnvironment)
    }

    /// The failpoint tests set (`SWIFT_KEYCHAIN_FAILPOINT=device-key-move`) to kill the process with SIGKILL between
    /// staging the new `device.key` and putting it in place, as a crash there would.
    static let failpointVariable = "SWIFT_KEYCHAIN_FAILPOINT"

    /// Moves the device key of the keychain in `directory` to `target`, in one step: the new `device.key` is written
    /// under a temporary name and synced, then renamed over the old one, so a crash leaves the old key or the new,
    /// never neither. The key itself does not change, so every item stays as it is. Nothing happens when the key is
    /// already there.
    ///
    /// Into the TPM: first the keychain's TPM counters are defined, the high-water mark records the counter and the
    /// failed-passcode seal is made again with it (each of which a keychain with a file key reads as well), then the
    /// sealed key replaces the file. Out of the TPM: refused while the passcode is entangled with the TPM
    /// (`PasscodeTPM`), which only the passcode can undo (remove it, move, set it again). A passcode set before the
    /// move into the TPM is entangled with it at its next change.
    public static func move(keychainAt directory: URL, to target: DeviceKeyStorage) throws(EngineError) {
        guard try current(in: directory) != target else { return }
        let keychain = KeychainDirectory(url: directory)
        guard let key = try DeviceKey.existing(in: keychain) else {
            throw EngineError(.noSuchKeychain, "no keychain (device key) in \(directory.path)")
        }
        let database = try Database(path: keychain.databasePath)
        var contents: [UInt8]
        switch target {
        case .file:
            if try KeybagRecord.load(from: database)?.passcode?.tpmKey != nil {
                throw EngineError(
                    .param,
                    "the keychain's passcode is entangled with the TPM, so its device key cannot leave it: remove the "
                        + "passcode, move the device key, then set the passcode again")
            }
            contents = DeviceKey.fileContents(key)
        case .tpm:
            guard let context = try DeviceKeyTPM.contextForNewKey() else {
                throw EngineError(
                    .notAvailable,
                    "no TPM is configured here: \(TPMContext.defaultDevice) does not exist and "
                        + "\(TPMContext.environmentVariable) names none")
            }
            contents = try DeviceKeyTPM.sealedFile(key, by: context)
            try bindToCounters(keychain, database: database, deviceKey: key)
        }
        defer { contents.wipe() }
        try replaceDeviceKey(of: keychain, with: contents)
    }

    /// Records the TPM counters' values in the high-water mark and the failed-passcode seal (the counters were
    /// registered by ``DeviceKeyTPM/sealedFile(_:by:)``). Each stays readable with the file key.
    private static func bindToCounters(
        _ keychain: KeychainDirectory, database: Database, deviceKey: SecretKey
    ) throws(EngineError) {
        let integrityKey = try ChangeLog.integrityKey(deviceKey: deviceKey)
        try HighWaterMark(path: keychain.highWaterMarkPath, key: integrityKey).bindToCounter()
        let attempts = try AttemptsSeal(deviceKey: deviceKey)
        try database.writeTransaction { () throws(EngineError) in
            guard var record = try KeybagRecord.load(from: database) else { return }
            let indexKey = try Keybag.openIndexKey(of: &record, deviceKey: deviceKey)
            guard try attempts.isAuthenticIgnoringCounter(record) else {
                throw EngineError(
                    .decode,
                    "the keybag's failed-passcode counter was changed outside the keychain (its seal does not "
                        + "match): unlock the keychain once, then move its device key")
            }
            try attempts.sealing(record, indexKey: indexKey).saveAttempts(to: database)
        }
    }

    /// Writes `contents` to a temporary file beside `device.key` (0600, synced), then renames it over `device.key`
    /// and syncs the directory.
    private static func replaceDeviceKey(of keychain: KeychainDirectory, with contents: [UInt8]) throws(EngineError) {
        let staged = keychain.deviceKeyPath + ".move.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file = try FileDescriptor<EngineError>.createExclusively(staged)
        defer { unlink(staged) }
        try file.write(contents)
        try file.synchronize()
        try file.close()
        if ProcessEnvironment.current[failpointVariable] == "device-key-move" { kill(getpid(), SIGKILL) }
        guard rename(staged, keychain.deviceKeyPath) == 0 else {
            throw EngineError(
                KeychainDirectory.systemErrorCode(),
                "cannot put the new device key in place: \(KeychainDirectory.systemError())")
        }
        keychain.syncDirectory()
    }
}
