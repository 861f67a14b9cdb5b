import KeychainTPM
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The device key sealed by a TPM 2.0 (DESIGN §15, issue 26): `device.key` format 2 holds the key as a blob only
/// the TPM that sealed it can open, so a copied keychain directory is useless on any other machine.
///
/// A new keychain is sealed to the TPM named by `KEYCHAIN_TPM` (a TCTI; `none` for the file key even where a TPM
/// exists), or to `/dev/tpmrm0` when the variable is not set and that device answers; otherwise the device key is
/// the plain file of format 1. A keychain of format 2 opens only where that TPM answers.
package enum DeviceKeyTPM {
    /// `device.key` format 2: "SKDK", 2, then the sealed blob (``TPMBlob``'s own format).
    static let magic: [UInt8] = Array("SKDK".utf8) + [2]
    /// The longest sealed blob read (a sealed 32-byte key is about 250 bytes).
    static let maximumBlobByteCount = 4096

    /// The TCTI to use instead of `KEYCHAIN_TPM` in this task (tests give each keychain a software TPM of its own
    /// this way, where setting the process's environment would reach every test at once); `none` for no TPM.
    @TaskLocal package static var tcti: String?

    /// The environment the TPM is chosen from: ``tcti`` when set, else the process's `KEYCHAIN_TPM` (never read in
    /// a process started with `AT_SECURE`, whose environment is its caller's choice).
    static var configuredEnvironment: [String: String] { environment }

    private static var environment: [String: String] {
        if let tcti { return [TPMContext.environmentVariable: tcti] }
        guard let named = ProcessEnvironment.current[TPMContext.environmentVariable] else { return [:] }
        return [TPMContext.environmentVariable: named]
    }

    /// The TPM a new device key is sealed to, or `nil` for the file key. A TPM named in the environment that does
    /// not answer is an error (the user asked for it); the default device that cannot be used (no libtss2, no
    /// permission on it) means the file key.
    static func contextForNewKey() throws(EngineError) -> TPMContext? {
        let environment = environment
        do {
            return try sharedContext(environment: environment)
        } catch {
            guard environment[TPMContext.environmentVariable] != nil else { return nil }
            throw EngineError(
                .notAvailable, "cannot seal the new keychain's device key to the TPM: \(error.message)")
        }
    }

    /// The bytes of a format-2 `device.key` holding `key` sealed by `context`.
    static func sealedFile(_ key: SecretKey, by context: TPMContext) throws(EngineError) -> [UInt8] {
        let bytes = key.withUnsafeBytes { Array($0) }
        defer { bytes.wipe() }
        let file: [UInt8]
        var used = context
        do {
            do {
                file = magic + (try context.seal(bytes).serialized())
            } catch {
                // The kept connection may be dead (the TPM restarted): once more on a new one.
                forget(context)
                used = try sharedContext(tcti: context.tcti)
                file = magic + (try used.seal(bytes).serialized())
            }
        } catch {
            throw EngineError(.notAvailable, "cannot seal the new keychain's device key to the TPM: \(error.message)")
        }
        try TPMCounterBinding.register(deviceKey: key, context: used)
        return file
    }

    /// The device key sealed in `blob` (the bytes after a format-2 header), unsealed by the TPM this process is
    /// configured for; errors name the TPM that is missing or refuses it.
    static func unseal(_ blob: [UInt8], path: String) throws(EngineError) -> SecretKey {
        let sealed: TPMBlob
        do {
            sealed = try TPMBlob(serialized: blob)
        } catch {
            throw EngineError(.invalidKeychain, "the device key \(path) is damaged: \(error.message)")
        }
        let context: TPMContext?
        do {
            context = try sharedContext(environment: environment)
        } catch {
            throw EngineError(
                .interactionNotAllowed,
                "the device key \(path) is sealed by a TPM, and the TPM cannot be reached: \(error.message)")
        }
        guard let context else {
            // No TPM named: either none here, or the default device without the software stack to reach it.
            let reason =
                TPMContext.loadFailure().map { "the TPM software stack cannot be loaded: \($0)" }
                ?? "\(TPMContext.defaultDevice) does not exist and \(TPMContext.environmentVariable) names none"
            throw EngineError(
                .interactionNotAllowed,
                "the device key \(path) is sealed by a TPM, and no TPM is configured here (\(reason))")
        }
        var bytes: [UInt8]
        var used = context
        do {
            (bytes, used) = try unseal(sealed, with: context)
        } catch  where error.code == .foreignBlob {
            throw EngineError(
                .invalidKeychain,
                "the device key \(path) is sealed by another TPM than the one at \(context.tcti) (a keychain copied "
                    + "from another machine opens only there): \(error.message)")
        } catch  where error.code == .invalidBlob || Self.namesAnArgument(error) {
            // The file's bytes, not the TPM: the blob does not parse, or the TPM refused a field of it (its
            // response code points at an argument, and the only argument that varies is the blob).
            throw EngineError(
                .decode,
                "the device key \(path) is damaged: the TPM at \(context.tcti) cannot load it (\(error.message)); "
                    + "restore it from a copy of the keychain")
        } catch {
            throw EngineError(
                .interactionNotAllowed,
                "the TPM at \(context.tcti) did not unseal the device key \(path): \(error.message)")
        }
        defer { bytes.wipe() }
        let key: SecretKey
        do {
            key = try SecretKey(copying: bytes)
        } catch {
            throw EngineError(.invalidKeychain, "the device key \(path) sealed by the TPM is not a 32-byte key")
        }
        // The keychain's counters in this TPM, which its high-water mark and attempts seal record (rollback).
        try TPMCounterBinding.register(deviceKey: key, context: used)
        return key
    }

    /// Whether the TPM refused one of a command's arguments (a format-one response code of the TPM itself: bit 7
    /// set, from the TPM or its resource manager's layer), rather than failing or being unreachable.
    private static func namesAnArgument(_ error: TPMError) -> Bool {
        guard let code = error.responseCode, error.code == .failed else { return false }
        let layer = code & 0xFF_0000
        return (layer == 0 || layer == 0x0C_0000) && code & 0x80 != 0
    }

    // MARK: One connection per TPM

    /// The connection to the TPM `environment` configures (``TPMContext/configuredTCTI(environment:)``), opened on
    /// first use and kept; `nil` when none is configured, or only the default device without libtss2.
    static func sharedContext(environment: [String: String]) throws(TPMError) -> TPMContext? {
        guard let tcti = TPMContext.configuredTCTI(environment: environment) else { return nil }
        if environment[TPMContext.environmentVariable] == nil, TPMContext.loadFailure() != nil { return nil }
        return try sharedContext(tcti: tcti)
    }

    /// The process's one connection to the TPM at `tcti` (``TPMContext/shared(tcti:)``: the keychains of one TPM and
    /// its "Secure Enclave" keys share it, since a software TPM serves one connection at a time).
    static func sharedContext(tcti: String) throws(TPMError) -> TPMContext {
        try TPMContext.shared(tcti: tcti)
    }

    /// Drops a kept connection that failed, so the next use opens a new one.
    private static func forget(_ context: TPMContext) {
        TPMContext.forget(context)
    }

    /// Unseals with `context`; when that fails otherwise than by refusing the blob, the kept connection may be dead
    /// (the TPM restarted): it is dropped, and the unseal tried once more on a new one. Returns the connection used.
    private static func unseal(
        _ sealed: TPMBlob, with context: TPMContext
    ) throws(TPMError) -> ([UInt8], TPMContext) {
        do {
            return (try context.unseal(sealed), context)
        } catch  where error.code == .foreignBlob || error.code == .invalidBlob {
            throw error
        } catch {
            forget(context)
            let fresh = try sharedContext(tcti: context.tcti)
            return (try fresh.unseal(sealed), fresh)
        }
    }

}
