import CSystem
import Foundation
import KeychainCore
import KeychainWire

/// Who sent a message, as the daemon decides it from the kernel's word: the user whose keychain it reaches, and
/// the caller (application identifier and access groups) the engine applies Apple's rules to.
package struct Principal: Equatable, Sendable {
    /// The user whose keychain the message reaches.
    var uid: UInt32
    /// The identity within that keychain.
    var caller: Caller
    /// Whether the sender is root (who may name another user's keychain and register apps).
    var isRoot: Bool
    /// Whether the sender may ask for another process of its user (``DaemonEnvelope/forwarded``): root, and a
    /// registered service whose entitlements say so and which starts in secure-execution mode.
    var mayForwardCallers = false

    /// Root, who reaches every keychain and is entitled to every group of the one it reaches.
    package static let root = Principal(uid: 0, caller: DaemonCallers.root, isRoot: true, mayForwardCallers: true)

    /// The one principal of every unregistered program a user runs (the `security` tool included): one shared
    /// access group, so Apple's rules hold between it and each registered app.
    static let unregisteredGroup = DaemonCallers.unregisteredGroup

    /// The caller of a user's unregistered programs.
    static let unregistered = DaemonCallers.unregistered

    /// The principal of a message from `sender`: a registered app when its process matches a registration (and
    /// the message was sent with the app's setgid group: ``AppRegistry/registration(for:pid:sentGroup:)``), a
    /// sandboxed app (``SandboxedApp``), else the user's unregistered programs; root is entitled to every group of
    /// the keychain it reaches.
    ///
    /// A pidfd pins the process: the kernel's, attached to the message (`SCM_PIDFD`), else one opened before
    /// anything is read (`pidfd_open`). The checks read `/proc/PID`, and a process that exited meanwhile (its pid
    /// free for reuse) gets no registered identity. Its liveness is asked with `poll`, which needs no permission
    /// over the process (the deployed daemon, another user without `CAP_KILL`, may not signal it).
    static func resolve(sender: MessageSender, registry: AppRegistry) -> Principal {
        if sender.uid == 0 { return root }
        return identify(
            pid: sender.pid, uid: sender.uid, process: sender.process, registry: registry,
            sentGroup: { _ in sender.gid })
    }

    /// The principal of `process`, for which `service` asks (``DaemonEnvelope/forwarded``): decided exactly as if
    /// the process had sent the message itself, from `/proc`, never from what the service says but the process's
    /// name. Refused (errSecMissingEntitlement, nothing granted) when the service may not speak for others, when
    /// the process is gone or its pid names another process now, or when it belongs to another user than the
    /// service's (only root's service may speak for any user).
    ///
    /// A registered app's identity needs the app's setgid group held as only the setgid exec gives it
    /// (``ProcessGroups/holdsOnlyBySetgidExec(_:)``), as for a direct client, and held already when the process
    /// reached the service (``ForwardedProcess/groups``, the bus's word): a program that connected and then exec'd
    /// the app, keeping the connection in a child, had not.
    static func resolve(
        forwarded process: ForwardedProcess, by service: Principal, registry: AppRegistry
    ) throws(EngineError) -> Principal {
        guard service.mayForwardCallers else {
            throw EngineError(
                .missingEntitlement,
                "only a registered service entitled to \(AppRegistration.forwardingEntitlement) may ask for another "
                    + "process (\(process.pid))")
        }
        let handle = ProcessHandle.open(pid: process.pid)
        guard handle != nil, process.isCurrent(), let uid = ProcessFacts.userID(pid: process.pid) else {
            throw EngineError(
                .missingEntitlement, "the process \(process.pid) the service asks for is no longer running")
        }
        guard service.isRoot || uid == service.uid else {
            throw EngineError(
                .missingEntitlement,
                "the process \(process.pid) belongs to user \(uid), not to the service's user \(service.uid)")
        }
        if uid == 0 { return root }
        // The group the message "came with": the effective group, when the process held it already when it reached
        // the service; else none (no gid is UInt32.max), so no registration matches.
        let principal = identify(
            pid: process.pid, uid: uid, process: handle, registry: registry,
            sentGroup: { process.groups.contains($0.groups.effective) ? $0.groups.effective : UInt32.max })
        // The process's name held throughout: the pid was not freed and given to another meanwhile.
        guard process.isCurrent() else {
            throw EngineError(
                .missingEntitlement, "the process \(process.pid) the service asks for is no longer running")
        }
        return principal
    }

    /// The principal of the process `pid` of user `uid`; `sentGroup` gives the group its message came with, from
    /// the facts read.
    private static func identify(
        pid: Int32, uid: UInt32, process: ProcessHandle?, registry: AppRegistry,
        sentGroup: (ProcessFacts) -> UInt32
    ) -> Principal {
        // Most messages come from programs no registration names: a stat of /proc/PID/exe tells, before the status
        // and auxiliary vector are read. A process that execs an app meanwhile is only ever taken for less.
        guard let file = ProcessFacts.executableFile(pid: pid),
            registry.hasRegistration(device: file.device, inode: file.inode)
        else {
            return sandboxedOrUnregistered(pid: pid, uid: uid)
        }
        let process = process ?? ProcessHandle.open(pid: pid)
        if let facts = ProcessFacts.read(pid: pid),
            let app = registry.registration(for: facts, pid: pid, sentGroup: sentGroup(facts)),
            process?.isRunning ?? (ProcessFacts.read(pid: pid) == facts)
        {
            return Principal(
                uid: uid, caller: app.caller, isRoot: false,
                mayForwardCallers: app.forwardsCallers == true && !app.allowsInsecureExecution)
        }
        return sandboxedOrUnregistered(pid: pid, uid: uid)
    }

    /// A sandboxed app's principal (``SandboxedApp``) when the process runs in one, else the user's unregistered
    /// programs'. A sandboxed process is never taken for an unregistered one: either would need its pid freed and
    /// given to the other within one message.
    private static func sandboxedOrUnregistered(pid: Int32, uid: UInt32) -> Principal {
        guard let app = SandboxedApp.of(pid: pid) else {
            return Principal(uid: uid, caller: unregistered, isRoot: false)
        }
        return Principal(uid: uid, caller: app.caller, isRoot: false)
    }
}
