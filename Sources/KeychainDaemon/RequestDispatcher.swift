import Foundation
import KeychainCore
import KeychainKeys
import KeychainWire

/// Carries out one request for a principal on the engine of the keychain it reaches.
package struct RequestDispatcher: Sendable {
    let keychains: UserKeychains
    let registry: AppRegistry
    /// Each user's quotas on items and bytes.
    let quotas: UserQuotas

    /// A dispatcher to the keychains of `keychains`, knowing registered apps from `registry`.
    package init(keychains: UserKeychains, registry: AppRegistry, quotas: UserQuotas) {
        // Apps' non-extractable keys are used here, where they are stored, never sent to the app.
        KeyUsePerformer.install()
        self.keychains = keychains
        self.registry = registry
        self.quotas = quotas
    }

    /// The reply to `envelope` (`size` bytes on the wire) from `principal`: the engine's result, or the error it
    /// threw. A write that would pass the quotas of the keychain it reaches is refused. `progress` hears how far a
    /// long request is, when its client asked (``DaemonRequest/sync(_:reportsProgress:)``).
    package func reply(
        to envelope: DaemonEnvelope, from principal: Principal, size: Int,
        progress: ((DaemonReply) -> Void)? = nil
    ) -> DaemonReply {
        do throws(EngineError) {
            let user = try targetUser(of: envelope, from: principal)
            try quotas.admit(envelope.request, size: size, uid: user, in: keychains)
            let reply = try carryOut(envelope, principal, progress: progress)
            quotas.carriedOut(envelope.request, uid: user)
            return reply
        } catch {
            return .failure(error)
        }
    }

    /// The uid whose keychain a request reaches: the sender's own, or the one root names.
    func targetUser(of envelope: DaemonEnvelope, from principal: Principal) throws(EngineError) -> UInt32 {
        guard let user = envelope.user, user != principal.uid else { return principal.uid }
        guard principal.isRoot else {
            throw EngineError(.missingEntitlement, "only root may use another user's keychain (uid \(user) was named)")
        }
        return user
    }

    private func carryOut(
        _ envelope: DaemonEnvelope, _ principal: Principal, progress: ((DaemonReply) -> Void)?
    ) throws(EngineError) -> DaemonReply {
        switch envelope.request {
        case .registerApp(let path, let entitlements, let insecure):
            try requireRoot(principal, "register an app")
            let registration = try registry.register(
                executable: path, entitlements: entitlements, allowsInsecureExecution: insecure)
            return .apps([Self.shown(registration)])
        case .unregisterApp(let path):
            try requireRoot(principal, "unregister an app")
            try registry.unregister(executable: path)
            return .backend(.done)
        case .listApps:
            // Which apps a machine runs, with their groups, is root's to know.
            try requireRoot(principal, "list the registered apps")
            return .apps(registry.all.map(Self.shown))
        case .describe:
            let caller = principal.caller
            return .description(
                DaemonDescription(
                    uid: try targetUser(of: envelope, from: principal),
                    applicationIdentifier: caller.applicationIdentifier, accessGroups: caller.accessGroups,
                    isRegisteredApp: caller != Principal.unregistered && !principal.isRoot))
        case .ping: return .backend(.done)
        case .sync(let operation, let reportsProgress):
            let user = try targetUser(of: envelope, from: principal)
            return .backend(
                .data(
                    try SyncRequests.carryOut(
                        operation, for: principal, uid: user, in: keychains,
                        progress: reportsProgress ? progress : nil)))
        case .hello, .subscribe, .beginWriteSession, .endWriteSession:
            throw EngineError(.param, "\(envelope.request.name) is only valid at the start of a connection")
        case .backend(let request):
            return .backend(try perform(request, for: principal, user: try targetUser(of: envelope, from: principal)))
        }
    }

    /// Carries out a keychain request on the engine of `user`'s keychain: a write committed together with the
    /// others that reach it at the same time, the requests whose answer would cross the wall between apps confined
    /// to the caller, the rest as the engine carries them out.
    private func perform(
        _ request: BackendRequest, for principal: Principal, user: UInt32
    ) throws(EngineError) -> BackendReply {
        let caller = principal.caller
        if request.isItemWrite {
            return .written(try keychains.committer(for: user).commit(request, for: caller).get())
        }
        let engine = try keychains.engine(for: user)
        switch request {
        case .setEraseAfter(let failures, nil) where principal.isRoot:
            // Root owns every keychain the daemon keeps; anyone else proves the passcode (the engine checks it).
            try engine.setEraseAfterAsAdministrator(failures: failures)
            return .done
        case .verify:
            // A report on every row (counts, damage, persistent references) would describe every app's items.
            try requireRoot(
                principal, "verify a whole keychain through keychaind (its report covers every app's items)")
            return .report(try engine.verify())
        case .latestChangeSequence:
            return .sequence(try engine.confinedLatestChangeSequence(for: caller))
        case .changes(let since, let limit):
            return .changes(try engine.confinedChanges(since: since, for: caller, limit: limit))
        case .wrapFileKey(let key, let fileClass, let context):
            // Bound to the caller's group: only programs entitled to it open the file (item keys have the same wall).
            return .data(try engine.wrapFileKey(key, for: fileClass, context: context, boundTo: caller.defaultGroup))
        case .unwrapFileKey(let wrapped, let fileClass, let context):
            return .key(
                try engine.unwrapFileKey(
                    wrapped, for: fileClass, context: context, caller: caller,
                    unboundGroup: Principal.unregisteredGroup))
        default:
            return try engine.perform(request, for: caller)
        }
    }

    private func requireRoot(_ principal: Principal, _ what: String) throws(EngineError) {
        guard principal.isRoot else { throw EngineError(.missingEntitlement, "only root may \(what)") }
    }

    private static func shown(_ registration: AppRegistration) -> RegisteredApp {
        RegisteredApp(
            path: registration.path, sha256: registration.sha256,
            applicationIdentifier: registration.caller.applicationIdentifier,
            accessGroups: registration.caller.accessGroups,
            allowsInsecureExecution: registration.allowsInsecureExecution)
    }
}
