import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon identity tests need from the machine: root (to create users, groups and setgid binaries, as CI
/// does) and the tools that switch to another user or trace a process.
enum Wall {
    /// An executable named `name` on the PATH or in the system directories, if any.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Root with useradd, groupadd and setpriv: the tests can create the users and installs they need, and run the
    /// daemon as deployed.
    static let canCreateUsers =
        DaemonProcess.canDeploy
        && ["useradd", "userdel", "groupadd", "groupdel", "setpriv"].allSatisfy {
            tool($0) != nil
        }

    /// Why a test did not run.
    static let needsRoot: Comment =
        "skipped: not root — these tests create a Linux user, groups and setgid binaries (CI runs them as root)"
    static let needsStrace: Comment = "skipped: strace is not installed (scripts/bootstrap installs it)"

    /// Runs `arguments` to the end: its status, standard output and standard error.
    @discardableResult
    static func run(
        _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are drained together: a child that fills one while the test waits on the other would hang.
        let collected = CollectedOutput()
        let group = DispatchGroup()
        for (pipe, isError) in [(output, false), (errors, true)] {
            group.enter()
            DispatchQueue.global().async {
                collected.set(pipe.fileHandleForReading.readDataToEndOfFile(), isError: isError)
                group.leave()
            }
        }
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, collected.text(isError: false), collected.text(isError: true))
    }

    /// Runs a system tool, failing the test with its error output when it fails.
    static func system(_ name: String, _ arguments: [String]) throws {
        guard let path = tool(name) else { throw WallError("\(name) is not installed") }
        let result = try run([path] + arguments)
        guard result.status == 0 else {
            throw WallError("\(name) \(arguments.joined(separator: " ")): \(result.errors)")
        }
    }
}

/// A test's setup step that failed.
struct WallError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Output collected from two reader threads.
private final class CollectedOutput: @unchecked Sendable {
    // @unchecked: guarded by the lock.
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    func set(_ data: Data, isError: Bool) {
        lock.withLock { if isError { errors = data } else { output = data } }
    }

    func text(isError: Bool) -> String {
        lock.withLock { String(decoding: isError ? errors : output, as: UTF8.self) }
    }
}

/// A Linux user (and its group of the same name) of one test's own, removed when released.
final class TestUser: Sendable {
    let name: String
    let uid: UInt32
    let gid: UInt32

    /// A user with a group of its own, or `primaryGroup` as its primary group.
    init(primaryGroup: TestGroup? = nil) throws {
        name = "kcw" + String(UUID().uuidString.prefix(8)).lowercased()
        try Wall.system(
            "useradd",
            [
                "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
            ] + (primaryGroup.map { ["--gid", $0.name] } ?? ["--user-group"]) + [name])
        isOwnGroup = primaryGroup == nil
        guard let entry = getpwnam(name) else { throw WallError("useradd made no user \(name)") }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
    }

    /// Whether the user's primary group is its own (removed with it).
    private let isOwnGroup: Bool

    deinit {
        _ = try? Wall.run([Wall.tool("userdel") ?? "/usr/sbin/userdel", name])
        if isOwnGroup { _ = try? Wall.run([Wall.tool("groupdel") ?? "/usr/sbin/groupdel", name]) }
    }

    /// The command line that runs `command` as this user (real and effective ids, no supplementary groups).
    func command(_ command: [String]) -> [String] {
        [Wall.tool("setpriv") ?? "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command
    }
}

/// A group of one test's own with no members (a registered app is installed setgid to it), removed when released.
final class TestGroup: Sendable {
    let name: String
    let gid: UInt32

    init() throws {
        name = "kcg" + String(UUID().uuidString.prefix(8)).lowercased()
        try Wall.system("groupadd", ["--system", name])
        guard let entry = getgrnam(name) else { throw WallError("groupadd made no group \(name)") }
        gid = entry.pointee.gr_gid
    }

    deinit { _ = try? Wall.run([Wall.tool("groupdel") ?? "/usr/sbin/groupdel", name]) }
}

/// One line a probe printed.
struct ProbeLine: Decodable {
    var status: Int32
    var message: String?
    var secret: String?
    var uid: UInt32?
    var applicationIdentifier: String?
    var accessGroups: [String]?
    var registered: Bool?
    var secure: Bool?
    var traced: Bool?
    var egid: UInt32?
    var errno: Int32?
    /// A change feed's sequence (`latest-sequence`, or the cursor of `changes`).
    var sequence: Int64?
    /// The changes a page of the feed held.
    var count: Int?
    /// Notices heard while another program ran, and after an add of the probe's own (`watch`).
    var before: Int?
    var after: Int?
    /// The liveness check's answers, while the process ran and after it ended (`- liveness`).
    var running: Bool?
    var stillRunning: Bool?
    /// Where the keychain was (the `default` target): `keychaind at SOCKET` or `embedded (…)`.
    var storage: String?
    /// How a `prompt` ended (`entered`, `canceled`, `unavailable`), and the secret's length when entered.
    var outcome: String?
    var length: Int?

    /// The status as an engine code (`nil` for success).
    var code: EngineError.Code? { status == 0 ? nil : EngineError.Code(rawValue: status) }
}

/// A real keychaind (as deployed: the `keychaind` user with only `CAP_SYS_PTRACE`), copies of keychaind-probe
/// installed in a directory every user can reach, and the means to run them as a test user.
final class WallLab {
    let daemon: DaemonProcess
    let apps: TemporaryDirectory
    /// Root's client: registers apps and looks into any user's keychain.
    let root: DaemonClient

    /// A lab whose daemon reads the time from its clock file when `readsClockFile` (``TestClock(file:)``).
    init(readsClockFile: Bool = false) throws {
        daemon = try DaemonProcess(readsClockFile: readsClockFile, account: .deployed)
        apps = try TemporaryDirectory(prefix: "kcw-apps")
        // Other users reach the socket and the probes; the state directory stays the daemon's alone (0700).
        for directory in [daemon.directory.url.path, apps.url.path] { chmod(directory, 0o755) }
        root = DaemonClient(socketPath: daemon.socketPath)
    }

    /// Installs a copy of `source` (the probe unless given) as `name`: setgid to `group` (mode 2755) when given,
    /// else 0755.
    func install(
        _ name: String, from source: String = BuiltExecutable.named("keychaind-probe").path,
        setgid group: TestGroup? = nil
    ) throws -> String {
        let path = apps.file(name).path
        try ExecutableCopy.copy(source, to: path)
        if let group { guard chown(path, 0, group.gid) == 0 else { throw WallError("cannot chgrp \(path)") } }
        guard chmod(path, group == nil ? 0o755 : 0o2755) == 0 else { throw WallError("cannot chmod \(path)") }
        return path
    }

    /// Registers `path` (as root, through the daemon) with an entitlements plist naming `identifier` and `groups`.
    func register(
        _ path: String, identifier: String, groups: [String], allowsInsecureExecution: Bool = false,
        more: [String: Any] = [:]
    ) throws {
        let entitlements = more.merging(["application-identifier": identifier, "keychain-access-groups": groups]) {
            $1
        }
        let plist = try PropertyListSerialization.data(fromPropertyList: entitlements, format: .xml, options: 0)
        _ = try root.send(
            .registerApp(path: path, entitlements: plist, allowsInsecureExecution: allowsInsecureExecution))
    }

    /// Runs `program SOCKET arguments…` as `user` — under `tracer` (run as root, outside the user switch) or
    /// `wrapper` (run as the user, inside it) when given — and returns the lines it printed.
    func run(
        _ program: String, as user: TestUser, _ arguments: [String], tracer: [String] = [], wrapper: [String] = []
    ) throws -> (lines: [ProbeLine], errors: String) {
        let command = tracer + user.command(wrapper + [program, daemon.socketPath] + arguments)
        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SWIFT_BACKTRACE": "enable=no"]
        let result = try Wall.run(command, environment: environment)
        let lines = try result.output.split(separator: "\n").map { line in
            do {
                return try JSONDecoder().decode(ProbeLine.self, from: Data(line.utf8))
            } catch {
                throw WallError("\(program) printed \(line) (errors: \(result.errors))")
            }
        }
        guard result.status == 0, !lines.isEmpty else {
            throw WallError("\(command.joined(separator: " ")) exited \(result.status): \(result.errors)")
        }
        return (lines, result.errors)
    }

    /// The one line `program` printed for a single operation.
    func line(_ program: String, as user: TestUser, _ arguments: [String], tracer: [String] = []) throws -> ProbeLine {
        let lines = try run(program, as: user, arguments, tracer: tracer).lines
        guard lines.count == 1 else { throw WallError("\(program) \(arguments) printed \(lines.count) lines") }
        return lines[0]
    }

    /// Every item of `user`'s keychain as root's `security` sees it (every group): account → access group.
    func groups(of user: TestUser) throws -> [String: String] {
        let all = ItemQuery(itemClass: .genericPassword, limit: .all, returning: .attributes)
        let reply: DaemonReply
        do {
            reply = try DaemonClient(socketPath: daemon.socketPath, user: user.uid).send(.backend(.copyMatching(all)))
        } catch {
            // No item at all is errSecItemNotFound, as for any query.
            if error.code == .itemNotFound { return [:] }
            throw error
        }
        guard case .backend(.items(let items)) = reply else { throw WallError("root's query answered with \(reply)") }
        var groups: [String: String] = [:]
        for item in items {
            if case .string(let account)? = item.attributes[.account],
                case .string(let group)? = item.attributes[.accessGroup]
            {
                groups[account] = group
            }
        }
        return groups
    }
}
