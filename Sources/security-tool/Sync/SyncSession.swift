import Foundation
import Keychain
import KeychainClient
import KeychainCore
import KeychainSync
import Security

/// What the sync verbs share: the keychain a device is (the embedded default one, `KEYCHAIN_HOME`), unlocked on
/// the terminal when a passcode locks it, its backend, and its sync device on the store its sync state names.
enum SyncSession {
    /// The default keychain's location, refused when keychaind serves it: the verbs work on a keychain's
    /// directory, and keychaind syncs the keychains it serves by itself once they are set up (README, "Inside
    /// keychaind"); sending the verbs through the daemon is not built.
    static func location() throws(ToolFailure) -> KeychainLocation {
        let location = KeychainLocation.standard
        guard location.daemon == nil else {
            throw .failed(
                status: errSecUnimplemented,
                message:
                    "sync: the default keychain is keychaind's (\(location.path)), which syncs it by itself once it is "
                    + "set up; the sync verbs work on a keychain's directory (as root: KEYCHAIN_DAEMON=off "
                    + "KEYCHAIN_HOME=/var/lib/swift-keychain/users/UID security sync-init --store URL, then restart "
                    + "keychaind), or set KEYCHAIN_DAEMON=off and KEYCHAIN_HOME to sync an embedded keychain")
        }
        return location
    }

    /// The keychain's backend, the keychain opened (and created when missing) and unlocked first when a passcode
    /// locks it, so that every class of item can be synced.
    static func backend(
        at location: KeychainLocation, _ session: ToolSession, context: String
    ) throws(ToolFailure) -> any KeychainBackend {
        let keychain = try session.keychains.opening(location, context: context)
        do throws(KeychainError) {
            try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) in
                let state = try keychain.keybagState()
                if state.hasPasscode && state.isLocked {
                    throw KeychainError(status: errSecInteractionNotAllowed, message: "the keychain is locked")
                }
            }
        } catch {
            throw .keychain(error, context)
        }
        do throws(EngineError) {
            return try KeychainBackends.backend(for: .directory(location.directory))
        } catch {
            throw .failed(status: error.code.rawValue, message: "\(context): \(error.message)")
        }
    }

    /// The store `url` names.
    static func openStore(_ url: String) throws(SyncError) -> any SyncStore {
        do throws(SyncStoreError) {
            return try SyncStores.open(url: url)
        } catch {
            throw SyncError(.store(error.kind), error.message)
        }
    }

    /// The keychain's sync device, on the store its sync state names.
    static func device(_ session: ToolSession, context: String) throws(ToolFailure) -> SyncDevice {
        let location = try location()
        guard SyncDevice.isConfigured(in: location.directory) else {
            throw .failed(
                status: 1,
                message:
                    "\(context): the keychain \(location.path) is not set up for sync: run sync-init --store URL on "
                    + "the first device, sync-join --store URL on the others")
        }
        let backend = try backend(at: location, session, context: context)
        return try run(context) { () throws(SyncError) -> SyncDevice in
            let store = try openStore(try SyncDevice.storeURL(in: location.directory))
            return try SyncDevice.open(directory: location.directory, backend: backend, store: store)
        }
    }

    /// Runs a sync call, turning its error into the tool's.
    static func run<T>(_ context: String, _ body: () throws(SyncError) -> T) throws(ToolFailure) -> T {
        do throws(SyncError) {
            return try body()
        } catch {
            throw failure(error, context)
        }
    }

    /// A sync error as the tool reports it: a keychain refusal keeps its status (its low byte is the exit status).
    static func failure(_ error: SyncError, _ context: String) -> ToolFailure {
        if case .keychain(let code) = error.kind {
            return .failed(status: code.rawValue, message: "\(context): \(error.message)")
        }
        return .failed(status: 1, message: "\(context): \(error.message)")
    }
}
