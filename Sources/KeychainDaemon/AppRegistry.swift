import Foundation
import KeychainCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One registered app: the identity a process gets when its executable is this file.
struct AppRegistration: Codable, Equatable, Sendable {
    /// The executable's path when it was registered.
    var path: String
    /// Its device and inode then: a process matches only the very file registered.
    var device: UInt64
    var inode: UInt64
    /// Its SHA-256 then (hex): a file rewritten in place no longer matches.
    var sha256: String
    /// The identity its entitlements give (application identifier and ordered access groups).
    var caller: Caller
    /// Whether a process started without `AT_SECURE` may still have the identity (weaker: see KeychainSync's DocC, "What keychaind's wall covers").
    var allowsInsecureExecution: Bool
    /// The group the executable is installed setgid to (`nil` when it is not setgid). Unless the registration
    /// allows insecure execution, a message is the app's only when it was sent with this group: `AT_SECURE` and
    /// `/proc/PID/exe` describe the process when the daemon looks, this group the process when it sent.
    var setgidGroup: UInt32?
    /// Whether the app may ask for other processes of its user (``DaemonEnvelope/forwarded``): its entitlements
    /// hold ``forwardingEntitlement`` (true), and it starts in secure-execution mode. `nil` in registrations made
    /// before the entitlement existed.
    var forwardsCallers: Bool?

    /// The entitlement of a service that speaks for its callers (the Secret Service for its D-Bus callers).
    static let forwardingEntitlement = "com.swift-keychain.forward-callers"

    /// Whether an entitlements plist holds ``forwardingEntitlement`` set to true.
    static func forwardsCallers(entitlements: Data) -> Bool {
        let plist = try? PropertyListSerialization.propertyList(from: entitlements, options: [], format: nil)
        return (plist as? [String: Any])?[forwardingEntitlement] as? Bool == true
    }
}

/// The registered apps, kept in `apps.json` in the daemon's state directory (0600, written atomically), changed
/// only by root through the daemon (`security register-app`).
package final class AppRegistry: Sendable {
    private let path: String
    private let registrations: Mutex<[AppRegistration]>
    /// Executable digests by file identity and change time, so a busy app is not hashed on every message.
    private let digests = Mutex<[DigestKey: String]>([:])

    private struct DigestKey: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var changed: Int
    }

    /// Where `register` looks for other executables setgid to an app's group, besides the app's own directory.
    private let searchedDirectories: [String]

    /// Loads the registry at `path` (empty when the file does not exist); registrations search
    /// `searchedDirectories` for executables that share an app's group (``SharedGroupCheck``).
    package init(path: String, searchedDirectories: [String] = SharedGroupCheck.systemDirectories) throws(EngineError) {
        self.path = path
        self.searchedDirectories = searchedDirectories
        var loaded: [AppRegistration] = []
        if let data = FileManager.default.contents(atPath: path) {
            do {
                loaded = try JSONDecoder().decode([AppRegistration].self, from: data)
            } catch {
                throw EngineError(.invalidKeychain, "the app registry \(path) cannot be read: \(error)")
            }
        }
        registrations = Mutex(loaded)
    }

    /// Every registration.
    var all: [AppRegistration] { registrations.withLock { $0 } }

    /// Registers (or replaces the registration of) the executable at `path` with the identity its entitlements
    /// plist gives.
    func register(
        executable path: String, entitlements: Data, allowsInsecureExecution: Bool
    ) throws(EngineError) -> AppRegistration {
        guard path.hasPrefix("/") else { throw .init(.param, "the executable path \(path) is not absolute") }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw EngineError(.param, "the executable \(path) is not a regular file")
        }
        let caller: Caller
        do {
            caller = try Caller(
                entitlements: entitlements, executableName: URL(fileURLWithPath: path).lastPathComponent)
        } catch {
            throw EngineError(.param, "the entitlements for \(path): \(error.message)")
        }
        let setgidGroup = info.st_mode & S_ISGID != 0 ? UInt32(info.st_gid) : nil
        let forwardsCallers = AppRegistration.forwardsCallers(entitlements: entitlements)
        if forwardsCallers && allowsInsecureExecution {
            // Whoever could start it without AT_SECURE (LD_PRELOAD) could speak for every app of the user.
            throw EngineError(
                .param,
                "the entitlements for \(path) hold \(AppRegistration.forwardingEntitlement): such a service must start in "
                    + "secure-execution mode; register it without --allow-insecure-exec")
        }
        if !allowsInsecureExecution {
            try Self.checkSetgidInstall(path, group: setgidGroup)
            if let setgidGroup {
                try SharedGroupCheck.check(
                    executable: path, app: (UInt64(info.st_dev), UInt64(info.st_ino)), group: setgidGroup,
                    directories: searchedDirectories)
            }
        }
        let registration = AppRegistration(
            path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            sha256: try Self.hex(FileDigest.sha256(ofFileAt: path)), caller: caller,
            allowsInsecureExecution: allowsInsecureExecution, setgidGroup: setgidGroup,
            forwardsCallers: forwardsCallers)
        try update { list in
            list.removeAll { $0.path == path || ($0.device == registration.device && $0.inode == registration.inode) }
            list.append(registration)
        }
        return registration
    }

    /// An app that must start with `AT_SECURE` is installed setgid to a group of its own: not root's group and
    /// not the daemon's (a process of the app holds that group's rights). Any other install could never match, so
    /// it is refused here rather than silently.
    private static func checkSetgidInstall(_ path: String, group: UInt32?) throws(EngineError) {
        guard let group else {
            throw EngineError(
                .param,
                "the executable \(path) is not installed setgid, so it cannot start with AT_SECURE: install it setgid "
                    + "to a group of its own (chgrp GROUP \(path); chmod g+s \(path)), or register it with "
                    + "--allow-insecure-exec")
        }
        guard group != 0, group != getegid() else {
            throw EngineError(
                .param,
                "the executable \(path) is setgid to group \(group), which is root's or keychaind's own: install it "
                    + "setgid to a group of its own")
        }
    }

    /// Removes the registration of `path`; `errSecItemNotFound` when there is none.
    func unregister(executable path: String) throws(EngineError) {
        var found = false
        try update { list in
            found = list.contains { $0.path == path }
            list.removeAll { $0.path == path }
        }
        guard found else { throw EngineError(.itemNotFound, "no app is registered at \(path)") }
    }

    /// Whether some registration names the file with this device and inode (the first, cheap check of a sender).
    func hasRegistration(device: UInt64, inode: UInt64) -> Bool {
        registrations.withLock { list in list.contains { $0.device == device && $0.inode == inode } }
    }

    /// The registration a message's sender is, if any: the process runs the same file (device, inode and
    /// content), is not traced, and — unless the registration allows insecure execution — sent the message with
    /// the app's setgid group (`sentGroup`) and holds that group as only the setgid exec gives it, which proves it
    /// started in secure-execution mode (``ProcessGroups/holdsOnlyBySetgidExec(_:)``).
    ///
    /// The facts are read when the daemon looks, the group was the sender's when it sent: a process that sends
    /// and then execs the app (the exec race) sent with its own group, and one started under a same-user tracer
    /// runs the app with `AT_SECURE` but without its group (the kernel drops setgid for it), even once the tracer
    /// has detached.
    func registration(for facts: ProcessFacts, pid: Int32, sentGroup: UInt32) -> AppRegistration? {
        let candidates = registrations.withLock { list in
            list.filter { $0.device == facts.device && $0.inode == facts.inode }
        }
        guard let candidate = candidates.first, !facts.isTraced,
            candidate.allowsInsecureExecution
                || (candidate.setgidGroup == sentGroup && facts.groups.holdsOnlyBySetgidExec(sentGroup)),
            let digest = digest(ofExecutableOf: pid), digest == candidate.sha256
        else { return nil }
        return candidate
    }

    /// The SHA-256 of the file a process runs, read through `/proc/PID/exe` (the mapped file itself).
    private func digest(ofExecutableOf pid: Int32) -> String? {
        guard let executable = try? FileDescriptor<EngineError>.open("/proc/\(pid)/exe", O_RDONLY),
            let info = try? executable.status()
        else { return nil }
        let key = DigestKey(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec,
            changed: info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec)
        if let known = digests.withLock({ $0[key] }) { return known }
        guard let digest = try? Self.hex(FileDigest.sha256(of: executable)) else { return nil }
        digests.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = digest
        }
        return digest
    }

    private func update(_ change: (inout [AppRegistration]) -> Void) throws(EngineError) {
        try registrations.withLock { (list) throws(EngineError) in
            var updated = list
            change(&updated)
            try Self.write(updated, to: path)
            list = updated
        }
    }

    /// Writes the registry atomically and durably (``FileDescriptor/replaceContents(of:with:)``: a new 0600 file,
    /// flushed, renamed over the old one, the directory flushed): it is the daemon's trust root.
    private static func write(_ list: [AppRegistration], to path: String) throws(EngineError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(list)
        } catch {
            throw EngineError(.internalComponent, "cannot encode the app registry: \(error)")
        }
        try FileDescriptor<EngineError>.replaceContents(of: path, with: [UInt8](data))
    }

    private static func hex(_ data: Data) -> String {
        data.hexText()
    }
}
