import Foundation
import KeychainClient
import KeychainCore

/// Whole keychains on disk: where the default one lives, whether one exists, creating and deleting one. For tools that
/// manage keychains (the `security` command); apps simply use a ``Keychain``, which creates its directory on first
/// use.
extension Keychain {
    /// The default keychain directory: `$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`, else
    /// `~/.local/share/swift-keychain`.
    public static var defaultDirectory: URL {
        KeychainStorage.defaultDirectory(environment: environment)
    }

    /// Whether `directory` holds a keychain (its database or its device key). Creates nothing.
    public static func exists(in directory: URL) -> Bool {
        KeychainBackends.keychainExists(in: directory)
    }

    /// Creates a keychain in `directory` (created 0700 when missing) and returns it, opened. Throws a
    /// `KeychainError` with status `errSecDuplicateKeychain` (-25296) when the directory holds a keychain already,
    /// and creates nothing then. The parameters are those of ``init(service:directory:identity:passcodeHashing:)``.
    public static func create(
        service: String, in directory: URL, identity: ApplicationIdentity? = nil,
        passcodeHashing: PasscodeHashing = .standard
    ) throws(KeychainError) -> Keychain {
        let keychain = Keychain(
            service: service, directory: directory, identity: identity, passcodeHashing: passcodeHashing)
        do throws(EngineError) {
            try keychain.connection.create()
        } catch {
            throw KeychainError(error, doing: "cannot create a keychain in \(directory.path)")
        }
        return keychain
    }

    /// Deletes the keychain in `directory`: its device key first (without it nothing left can be decrypted), then
    /// its database files, then the directory when nothing else is left in it; other files are never touched.
    /// Throws a `KeychainError` with status `errSecNoSuchKeychain` (-25294) when the directory holds no keychain.
    ///
    /// Release every ``Keychain`` value on the directory first: an engine still open would keep using deleted
    /// files.
    public static func delete(in directory: URL) throws(KeychainError) {
        do {
            try KeychainBackends.deleteKeychain(in: directory)
        } catch {
            throw KeychainError(error, doing: "cannot delete the keychain in \(directory.path)")
        }
    }

    /// Creates a keychain in `directory` off the caller's executor; see
    /// ``create(service:in:identity:passcodeHashing:)-8605u``.
    public static func create(
        service: String, in directory: URL, identity: ApplicationIdentity? = nil,
        passcodeHashing: PasscodeHashing = .standard
    ) async throws(KeychainError) -> Keychain {
        try await offloadFileWork { () throws(KeychainError) -> Keychain in
            try create(service: service, in: directory, identity: identity, passcodeHashing: passcodeHashing)
        }
    }

    /// Deletes the keychain in `directory` off the caller's executor; see ``delete(in:)``.
    public static func delete(in directory: URL) async throws(KeychainError) {
        try await offloadFileWork { () throws(KeychainError) in try delete(in: directory) }
    }

    /// Runs blocking file work on a global queue, so neither an actor nor the cooperative pool waits on the disk.
    private static func offloadFileWork<Output: Sendable>(
        _ work: @escaping @Sendable () throws(KeychainError) -> Output
    ) async throws(KeychainError) -> Output {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Output, KeychainError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(KeychainError) -> Output in try work() })
            }
        }
        return try result.get()
    }
}
