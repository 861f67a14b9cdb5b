import Foundation
import Keychain
import KeychainClient
import KeychainCore
import KeychainSync
import Security

/// What the sync verbs share: the default keychain — keychaind's, which carries out each operation itself, or an
/// embedded one (`KEYCHAIN_HOME`), unlocked on the terminal when a passcode locks it — and the one operation each
/// verb is (``SyncOperation``).
enum SyncSession {
    /// The default keychain's location, for what only an embedded keychain's sync does (`sync --watch`: keychaind
    /// follows the keychain it serves by itself).
    static func embeddedLocation(_ context: String) throws(ToolFailure) -> KeychainLocation {
        let location = KeychainLocation.standard
        if let daemon = location.daemon {
            throw .failed(
                status: errSecUnimplemented,
                message:
                    "\(context): the default keychain is \(daemon.description), which follows the store by itself once "
                    + "it is set up (sync-init or sync-join); set KEYCHAIN_DAEMON=off and KEYCHAIN_HOME to follow an "
                    + "embedded keychain")
        }
        return location
    }

    /// Carries out a sync verb's operation on the default keychain: through keychaind when it serves the keychain
    /// (the daemon does the work on its own copy and follows the store from then on), else here on the embedded
    /// keychain, opened and unlocked first.
    /// `progress` hears how far an embedded keychain's pass is; through keychaind nothing does (its protocol answers
    /// once, when the operation is done).
    static func perform(
        _ operation: SyncOperation, _ session: ToolSession, context: String,
        progress: ((SyncProgress) -> Void)? = nil
    ) throws(ToolFailure) -> SyncOutcome {
        let location = KeychainLocation.standard
        if let daemon = location.daemon {
            return try perform(operation, through: daemon, context: context, progress: progress)
        }
        switch operation {
        case .createCircle, .join: break
        default:
            try requireSetUp(location, context: context)
        }
        let backend = try backend(at: location, session, context: context)
        return try run(context) { () throws(SyncError) -> SyncOutcome in
            try SyncDevice.perform(operation, directory: location.directory, backend: backend, progress: progress)
        }
    }

    /// An operation answered with another outcome than its own.
    static func unexpectedAnswer(_ context: String) -> ToolFailure {
        .failed(status: errSecInternalComponent, message: "\(context): an unexpected answer")
    }

    /// The operation sent to keychaind, and its answer.
    private static func perform(
        _ operation: SyncOperation, through daemon: DaemonTarget, context: String,
        progress: ((SyncProgress) -> Void)?
    ) throws(ToolFailure) -> SyncOutcome {
        let request: Data
        do {
            request = try JSONEncoder().encode(operation)
        } catch {
            throw .failed(status: errSecInternalComponent, message: "\(context): \(error)")
        }
        let answer: Data
        do throws(EngineError) {
            // keychaind reports a pass's progress when asked (stage 0 receiving records, 1 applying items).
            let reports = progress.map { progress in
                { (stage: Int, done: Int, total: Int) in
                    progress(SyncProgress(phase: stage == 0 ? .receiving : .applying, done: done, total: total))
                }
            }
            let reply = try daemon.client.send(.sync(request, reportsProgress: progress != nil), progress: reports)
            guard case .backend(.data(let data)) = reply else {
                throw EngineError(.internalComponent, "keychaind answered the sync request with another reply")
            }
            answer = data
        } catch {
            throw .failed(status: error.code.rawValue, message: "\(context): \(error.message)")
        }
        let reply: SyncReply
        do {
            reply = try JSONDecoder().decode(SyncReply.self, from: answer)
        } catch {
            throw .failed(status: errSecInternalComponent, message: "\(context): keychaind's answer: \(error)")
        }
        return try run(context) { () throws(SyncError) -> SyncOutcome in try reply.result(of: operation) }
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

    /// Refuses a keychain with no sync state yet, before anything opens (or creates) it.
    private static func requireSetUp(_ location: KeychainLocation, context: String) throws(ToolFailure) {
        guard SyncDevice.isConfigured(in: location.directory) else {
            throw .failed(
                status: 1,
                message:
                    "\(context): the keychain \(location.path) is not set up for sync: run sync-init --store URL on "
                    + "the first device, sync-join --store URL on the others")
        }
    }

    /// The embedded keychain's sync device, on the store its sync state names (`sync --watch`).
    static func device(_ session: ToolSession, context: String) throws(ToolFailure) -> SyncDevice {
        let location = try embeddedLocation(context)
        try requireSetUp(location, context: context)
        let backend = try backend(at: location, session, context: context)
        return try run(context) { () throws(SyncError) -> SyncDevice in
            let store = try openStore(try SyncDevice.storeURL(in: location.directory, backend: backend))
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
