import Foundation
import KeychainClient
import KeychainCore
import KeychainWire

/// The keychain identity each D-Bus caller gets.
///
/// Served by keychaind, the service asks for the caller: it names the process that sent the call (its pid, which
/// the bus reports, and its start time) and keychaind decides who that process is, as for a direct client — a
/// registered app gets its own groups, a sandboxed app its own, every other program of the user the shared group —
/// provided this service is registered with `com.swift-keychain.forward-callers`. Unregistered, the service is
/// itself an unregistered program, and so is every caller it asks for: the shared group (a registered app's items
/// stay out of reach, as for any unregistered program). On an embedded keychain there is no wall: every caller is
/// the service (the Keychain DocC's "The Secret Service" says so).
final class CallerIdentities {
    /// Where the identities come from.
    enum Source {
        /// keychaind: one forwarding client per caller.
        case daemon(DaemonClient)
        /// An embedded keychain: one backend and one caller for all.
        case shared(any KeychainBackend, Caller)
    }

    /// A caller's backend and identity.
    struct Identity {
        var backend: any KeychainBackend
        var caller: Caller
    }

    private let source: Source
    /// The unique bus name of the call being answered (set by the connection that serves the calls).
    var currentSender: () -> String? = { nil }
    /// The process id the bus reports for a unique name (set by the connection).
    var processID: (String) -> Int32? = { _ in nil }
    /// The groups (effective and supplementary) the bus recorded for a unique name when it connected (set by the
    /// connection): keychaind takes the process for a registered app only if it held the app's group then, not
    /// only now (a program that connected and then exec'd the app would otherwise be the app).
    var connectionGroups: (String) -> [UInt32]? = { _ in nil }
    /// Told of the service's writes of its own records (collections, aliases), which are no items: the change feed
    /// then signals none of them (set by main to the feed's follower).
    var recordWritten: ((_ member: String, _ path: String) -> Void)?
    /// The collections' and aliases' records, by the group they live in and their kind, kept between calls while
    /// the change feed is followed (every client resolves `aliases/default` on every call): forgotten when the
    /// service writes a record and whenever the feed shows a change.
    private var records: [String: [Item]] = [:]
    /// Whether records are kept between calls: only while the feed tells of other programs' writes.
    var keepsRecords = false

    /// The records cached under `key`, or those `read` gives (then cached).
    func records(_ key: String, _ read: () throws(EngineError) -> [Item]) throws(EngineError) -> [Item] {
        if keepsRecords, let known = records[key] { return known }
        let read = try read()
        if keepsRecords { records[key] = read }
        return read
    }

    /// Forgets the identity of a connection that left the bus (its name is never given to another).
    func forget(_ sender: String) { known[sender] = nil }

    /// Forgets the cached records: one was written, or the feed changed.
    func forgetRecords() { records.removeAll() }

    /// Identities by unique bus name: a name is never given to another connection, and its process is fixed.
    private var known: [String: Identity] = [:]
    /// At most this many callers are remembered; past it, the memory starts over (a name is looked up again).
    private static let knownLimit = 512

    init(source: Source) {
        self.source = source
    }

    /// Where the identities come from when the keychain is `backend`: per caller through keychaind when this
    /// service may speak for others (it asks for itself to find out), else this service's own identity for all —
    /// said on standard error, since a registered service's groups are then every caller's.
    static func source(for backend: any KeychainBackend) throws(EngineError) -> Source {
        guard let daemon = backend as? DaemonClient else {
            // No wall on an embedded keychain: the service may reach every group of it (each collection is one), as any
            // program of the user could.
            return .shared(backend, Caller.administrator(defaultGroup: "login"))
        }
        if let itself = ForwardedProcess.running(pid: getpid()),
            (try? daemon.forwarding(itself).send(.describe)) != nil
        {
            return .daemon(daemon)
        }
        guard case .description(let seen) = try daemon.send(.describe) else {
            throw EngineError(.internalComponent, "keychaind answered describe with another reply")
        }
        let caller = Caller(applicationIdentifier: seen.applicationIdentifier, accessGroups: seen.accessGroups)
        if seen.isRegisteredApp {
            FileHandle.standardError.write(
                Data(
                    ("keychain-secret-service: registered without com.swift-keychain.forward-callers: every D-Bus "
                        + "caller acts as this service (\(seen.accessGroups.joined(separator: ", ")))\n").utf8))
        }
        return .shared(daemon, caller)
    }

    /// Whether callers are told apart (through keychaind, by a service entitled to forward them).
    var isWalled: Bool {
        if case .daemon = source { return true }
        return false
    }

    /// The identity of the caller whose call is being answered.
    func current() throws(EngineError) -> Identity {
        switch source {
        case .shared(let backend, let caller): return Identity(backend: backend, caller: caller)
        case .daemon(let daemon):
            guard let sender = currentSender() else {
                throw EngineError(.internalComponent, "a call without a sender")
            }
            if let identity = known[sender] { return identity }
            let identity = try resolve(sender, daemon: daemon)
            if known.count >= Self.knownLimit { known.removeAll() }
            known[sender] = identity
            return identity
        }
    }

    /// The identity whose change feed the bus may hear of: the user's shared group — through keychaind, that of
    /// the bus daemon's process `busPID` (an unregistered program of the user).
    func feedIdentity(busPID: Int32?) throws(EngineError) -> Identity {
        switch source {
        case .shared(let backend, let caller):
            // The collection `login`'s changes: the group every caller shares here.
            return Identity(
                backend: backend,
                caller: Caller(applicationIdentifier: caller.applicationIdentifier, accessGroups: [caller.defaultGroup])
            )
        case .daemon(let daemon):
            guard let busPID, let process = ForwardedProcess.running(pid: busPID) else {
                throw EngineError(.notAvailable, "the bus does not say which process it is")
            }
            return try identity(of: process, daemon: daemon)
        }
    }

    private func resolve(_ sender: String, daemon: DaemonClient) throws(EngineError) -> Identity {
        // Without the bus's word on the groups, the process is forwarded with none: never a registered app.
        let groups = connectionGroups(sender) ?? []
        guard let pid = processID(sender), let process = ForwardedProcess.running(pid: pid, groups: groups),
            // Still the same process behind the name: its pid was not freed and reused while it was named.
            processID(sender) == pid, process.isCurrent()
        else {
            throw EngineError(.missingEntitlement, "the bus does not say which process \(sender) is")
        }
        return try identity(of: process, daemon: daemon)
    }

    private func identity(of process: ForwardedProcess, daemon: DaemonClient) throws(EngineError) -> Identity {
        let client = daemon.forwarding(process)
        guard case .description(let seen) = try client.send(.describe) else {
            throw EngineError(.internalComponent, "keychaind answered describe with another reply")
        }
        let caller = Caller(applicationIdentifier: seen.applicationIdentifier, accessGroups: seen.accessGroups)
        return Identity(backend: client, caller: caller)
    }
}
