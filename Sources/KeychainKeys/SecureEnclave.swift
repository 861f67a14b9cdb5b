import Foundation
import KeychainCore
import KeychainTPM

/// Keys in the TPM, as Apple's Secure Enclave keys (`kSecAttrTokenID: kSecAttrTokenIDSecureEnclave`; DESIGN §15,
/// issue 26): P-256 private keys generated inside the TPM, which sign and agree there and never leave it.
///
/// The key item's secret is the TPM's wrapped blob (``TPMBlob``), which only the TPM that made it loads, and its
/// public key is read from that blob without the TPM. The TPM is the one of the process that holds the keychain
/// (keychaind for its clients): the one `KEYCHAIN_TPM` names (a TCTI), else `/dev/tpmrm0`. Without one, every
/// operation is errSecUnimplemented naming the missing TPM: a Secure Enclave key is never made in software.
package enum SecureEnclave {
    /// Apple's `kSecAttrTokenIDSecureEnclave`, the value of the key item's `tkid`.
    package static let tokenID = "com.apple.setoken"

    /// The TCTI to use instead of `KEYCHAIN_TPM` in this task (tests give each keychain a software TPM of its own
    /// this way, where the process's environment would reach every test at once); `none` for no TPM.
    @TaskLocal package static var tcti: String?

    /// Whether `attributes` describe a key in the Secure Enclave.
    package static func holds(_ attributes: ItemAttributes) -> Bool {
        attributes[.tokenID] == .string(tokenID)
    }

    /// The environment the TPM is chosen from: ``tcti`` when set, else the process's `KEYCHAIN_TPM`.
    private static var environment: [String: String] {
        if let tcti { return [TPMContext.environmentVariable: tcti] }
        guard let named = ProcessEnvironment.current[TPMContext.environmentVariable] else { return [:] }
        return [TPMContext.environmentVariable: named]
    }

    /// Runs `body` with this process's TPM for `operation`. A connection that has gone away (the TPM restarted) is
    /// opened again once; no TPM is errSecUnimplemented naming what is missing.
    static func withTPM<Result>(
        _ operation: String, _ body: (TPMContext) throws(TPMError) -> Result
    ) throws(EngineError) -> Result {
        let environment = environment
        guard let tcti = TPMContext.configuredTCTI(environment: environment) else {
            throw EngineError(
                .unimplemented,
                "\(operation): a Secure Enclave key (kSecAttrTokenID com.apple.setoken) lives in a TPM 2.0, and "
                    + "there is none here: \(TPMContext.defaultDevice) does not exist and "
                    + "\(TPMContext.environmentVariable) names none")
        }
        if environment[TPMContext.environmentVariable] == nil, let failure = TPMContext.loadFailure() {
            throw EngineError(
                .unimplemented,
                "\(operation): a Secure Enclave key lives in the TPM at \(tcti), and the TPM software stack "
                    + "(libtss2) cannot be loaded: \(failure)")
        }
        for attempt in 0..<2 {
            let context = try context(for: tcti, operation: operation)
            do {
                return try body(context)
            } catch  where error.code == .unavailable && attempt == 0 {
                // The kept connection is dead (the TPM restarted): once more on a new one.
                TPMContext.forget(context)
            } catch {
                throw engineError(error, operation: operation, tcti: tcti)
            }
        }
        throw EngineError(.notAvailable, "\(operation): the TPM at \(tcti) stopped answering")
    }

    /// The process's connection to `tcti` (shared with everything else in it that uses that TPM).
    private static func context(for tcti: String, operation: String) throws(EngineError) -> TPMContext {
        do {
            return try TPMContext.shared(tcti: tcti)
        } catch {
            let code: EngineError.Code = TPMContext.loadFailure() == nil ? .notAvailable : .unimplemented
            throw EngineError(code, "\(operation): the Secure Enclave key's TPM is missing: \(error.message)")
        }
    }

    /// The keychain's error for a TPM failure.
    private static func engineError(_ error: TPMError, operation: String, tcti: String) -> EngineError {
        let code: EngineError.Code
        switch error.code {
        case .foreignBlob, .invalidBlob: code = .decode
        case .authorizationFailed: code = .authFailed
        case .lockout: code = .interactionNotAllowed
        case .invalidArgument: code = .param
        case .unavailable: code = .notAvailable
        default: code = .internalComponent
        }
        let message =
            error.code == .foreignBlob
            ? "\(operation): the Secure Enclave key was made by another TPM than the one at \(tcti), so it cannot "
                + "be used here: \(error.message)"
            : "\(operation) with the Secure Enclave key (TPM at \(tcti)): \(error.message)"
        return EngineError(code, message)
    }

    /// The TPM key a key item's secret holds.
    static func key(in data: Data) throws(EngineError) -> TPMP256Key {
        do {
            return try TPMP256Key(blob: TPMBlob(serialized: [UInt8](data)))
        } catch {
            throw EngineError(.decode, "the Secure Enclave key item's TPM blob is damaged: \(error.message)")
        }
    }
}
