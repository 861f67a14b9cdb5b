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

    /// Root, who reaches every keychain and is entitled to every group of the one it reaches.
    package static let root = Principal(uid: 0, caller: DaemonCallers.root, isRoot: true)

    /// The one principal of every unregistered program a user runs (the `security` tool included): one shared
    /// access group, so Apple's rules hold between it and each registered app.
    static let unregisteredGroup = DaemonCallers.unregisteredGroup

    /// The caller of a user's unregistered programs.
    static let unregistered = DaemonCallers.unregistered

    /// The principal of a message from `sender`: a registered app when its process matches a registration (and
    /// the message was sent with the app's setgid group: ``AppRegistry/registration(for:pid:sentGroup:)``), else
    /// the user's unregistered programs; root is entitled to every group of the keychain it reaches.
    ///
    /// A pidfd pins the process: the kernel's, attached to the message (`SCM_PIDFD`), else one opened before
    /// anything is read (`pidfd_open`). The checks read `/proc/PID`, and a process that exited meanwhile (its pid
    /// free for reuse) gets no registered identity. Its liveness is asked with `poll`, which needs no permission
    /// over the process (the deployed daemon, another user without `CAP_KILL`, may not signal it).
    static func resolve(sender: MessageSender, registry: AppRegistry) -> Principal {
        if sender.uid == 0 {
            return Principal(uid: 0, caller: DaemonCallers.root, isRoot: true)
        }
        // Most messages come from programs no registration names: a stat of /proc/PID/exe tells, before the status
        // and auxiliary vector are read. A process that execs an app meanwhile is only ever taken for less.
        guard let file = ProcessFacts.executableFile(pid: sender.pid),
            registry.hasRegistration(device: file.device, inode: file.inode)
        else {
            return Principal(uid: sender.uid, caller: unregistered, isRoot: false)
        }
        let process = sender.process ?? ProcessHandle.open(pid: sender.pid)
        if let facts = ProcessFacts.read(pid: sender.pid),
            let app = registry.registration(for: facts, pid: sender.pid, sentGroup: sender.gid),
            process?.isRunning ?? (ProcessFacts.read(pid: sender.pid) == facts)
        {
            return Principal(uid: sender.uid, caller: app.caller, isRoot: false)
        }
        return Principal(uid: sender.uid, caller: unregistered, isRoot: false)
    }
}
