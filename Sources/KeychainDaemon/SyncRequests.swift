import Foundation
import KeychainCore
import KeychainSync
import KeychainWire

/// The sync verbs on the keychain the daemon serves (issue 27): the `security` tool sends a ``SyncOperation`` and
/// the daemon carries it out on its own engine and directory for the user — no root, no restart — then follows the
/// keychain in the background from the moment it is set up.
///
/// Sync is the user's to set up, as the `security` tool's: root and the user's unregistered programs may; a
/// registered app or a sandboxed one may not (setting up sync sends every synchronizable item of every app of the
/// user to the store).
enum SyncRequests {
    /// Carries out the operation `json` describes for `principal` on `uid`'s keychain; `progress` hears how far a
    /// pass is, at most ten times a second (and at each stage's end), as ``DaemonReply/progress(stage:done:total:)``:
    /// stage 0 receiving records, 1 applying items.
    static func carryOut(
        _ json: Data, for principal: Principal, uid: UInt32, in keychains: UserKeychains,
        progress: ((DaemonReply) -> Void)? = nil
    ) throws(EngineError) -> Data {
        guard principal.isRoot || principal.caller == Principal.unregistered else {
            throw EngineError(
                .missingEntitlement,
                "sync is set up by the user (the security tool), not by an app: \(principal.caller.applicationIdentifier) may not"
            )
        }
        let operation: SyncOperation
        do {
            operation = try JSONDecoder().decode(SyncOperation.self, from: json)
        } catch {
            throw EngineError(.param, "a sync request that does not parse: \(error)")
        }
        let engine = try keychains.engine(for: uid)
        let directory = keychains.directory(of: uid)
        let reply: SyncReply
        do throws(SyncError) {
            let reporter = progress.map { ProgressReporter(send: $0) }
            reply = SyncReply(
                try SyncDevice.perform(
                    operation, directory: directory, backend: engine, progress: reporter.map { $0.report }))
            switch operation {
            case .createCircle, .join:
                // Followed from now on: changes reach the store, and the store's reach the keychain.
                keychains.sync.start(uid: uid, directory: directory, engine: engine)
            default: break
            }
        } catch {
            reply = SyncReply(error, message: Self.explained(error, operation))
        }
        do {
            return try JSONEncoder().encode(reply)
        } catch {
            throw EngineError(.internalComponent, "the sync reply cannot be encoded: \(error)")
        }
    }

    /// The error's message; a store the daemon cannot reach says why and what to change.
    private static func explained(_ error: SyncError, _ operation: SyncOperation) -> String {
        guard case .store = error.kind else { return error.message }
        switch operation {
        case .createCircle, .join:
            return error.message
                + " — keychaind reaches the store from inside its sandbox: for a folder in a home directory or a "
                + "network server, root writes the unit's drop-in (keychaind --sync-drop-in > "
                + "/etc/systemd/system/keychaind.service.d/sync.conf, then systemctl daemon-reload and restart "
                + "keychaind) or gives a store keychaind's unit can reach (a folder it may write, a PostgreSQL socket)"
        default: return error.message
        }
    }
}

/// Sends a pass's progress to the client, no more often than a terminal redraws it.
private final class ProgressReporter {
    private let send: (DaemonReply) -> Void
    private var last: UInt64 = 0
    private static let interval: UInt64 = 100_000_000

    init(send: @escaping (DaemonReply) -> Void) {
        self.send = send
    }

    func report(_ progress: SyncProgress) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard progress.done >= progress.total || now &- last >= Self.interval else { return }
        last = now
        send(.progress(stage: progress.phase == .receiving ? 0 : 1, done: progress.done, total: progress.total))
    }
}
