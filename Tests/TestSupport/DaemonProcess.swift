import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real `keychaind` (built beside the test bundle) on a temporary socket and state directory of one test's own,
/// with the cheapest passcode cost. Started by `init`, which returns once the daemon listens; SIGKILLed and reaped
/// when released (or by ``kill()``), whatever the test's outcome.
///
/// When the tests run as root (CI does), the daemon runs as it is deployed (``Account/deployed``): as the
/// `keychaind` system user with only `CAP_SYS_PTRACE`, so the code paths the tests prove are the shipped ones.
public final class DaemonProcess: @unchecked Sendable {
    /// Whom the daemon runs as.
    public enum Account: Sendable, Equatable {
        /// As `systemd/keychaind.service` runs it: the `keychaind` system user (created if missing, as `make install`
        /// does) and its group, no supplementary groups, only `CAP_SYS_PTRACE` (bounding, inheritable and ambient
        /// sets), no new privileges. Needs root (``canDeploy``).
        case deployed
        /// As the user running the tests, with all of its privileges: root's daemon when the tests are root. Only
        /// for a test that needs what the deployed daemon must not have; say why where it is used.
        case invokingUser

        /// ``deployed`` when the tests can deploy the daemon (root), else ``invokingUser`` (a user-owned daemon,
        /// which serves only that user).
        public static var standard: Account { DaemonProcess.canDeploy ? .deployed : .invokingUser }
    }

    /// Whether the tests can run the daemon as deployed: root, with `setpriv` and `useradd`.
    public static let canDeploy =
        getuid() == 0
        && [DeployedAccount.setpriv, DeployedAccount.useradd].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    /// Why a test that needs the deployed daemon did not run (for a `Comment`).
    public static let needsDeployment =
        "skipped: not root — the deployed keychaind runs as the keychaind system user, which only root can create and switch to (CI runs as root)"

    /// Whom this daemon runs as.
    public let account: Account
    // @unchecked: `process` is replaced only by `restart()`, which tests call from one task.
    /// The temporary directory holding the socket and the state directory.
    public let directory: TemporaryDirectory
    /// The socket clients connect to.
    public var socketPath: String { directory.url.appendingPathComponent("keychaind.sock").path }
    /// The daemon's state directory (`users/<uid>/` are the keychains).
    public var stateDirectory: URL { directory.url.appendingPathComponent("state", isDirectory: true) }
    private var process: Process?
    /// The daemon's process identifier while it runs (under an activator: the activator's, which execs it).
    public var processIdentifier: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }
    private let extraArguments: [String]
    /// Variables added to the daemon's environment (`KEYCHAIN_TPM`, …).
    private var extraEnvironment: [String: String] = [:]
    /// The socket activator the daemon is started through (`systemd-socket-activate`), if any.
    private let activator: URL?
    private let errors = Output()

    private final class Output: Sendable {
        let text = Mutex("")
    }

    /// The file the daemon reads the time from, when started with `readsClockFile`.
    public var clockFile: URL { directory.url.appendingPathComponent("clock") }

    /// Starts a daemon as `account`; `arguments` are added to its command line (`--idle-lock 1`, …). With
    /// `readsClockFile`, it reads the time from ``clockFile`` (the system clock until something writes it);
    /// `environment` is added to the daemon's (`KEYCHAIN_TPM` names its TPM).
    public init(
        arguments: [String] = [], readsClockFile: Bool = false, account: Account = .standard,
        environment: [String: String] = [:]
    ) throws {
        directory = try TemporaryDirectory(prefix: "kcd")
        self.account = account
        extraEnvironment = environment
        extraArguments =
            arguments + (readsClockFile ? ["--clock", directory.url.appendingPathComponent("clock").path] : [])
        if readsClockFile {
            // Readable by the deployed daemon whatever the tests' umask; empty, it means the system clock.
            let clock = directory.url.appendingPathComponent("clock").path
            guard FileManager.default.createFile(atPath: clock, contents: nil), chmod(clock, 0o644) == 0 else {
                throw DaemonStartError(log: "cannot create the clock file \(clock)")
            }
        }
        activator = nil
        try start()
    }

    /// Starts a daemon through a socket activator (`systemd-socket-activate` at `activator`), which listens on
    /// ``socketPath`` with `SOCK_SEQPACKET` and, on the first connection, execs keychaind in its own process with
    /// `LISTEN_FDS` (no `--socket`): as systemd's `keychaind.socket` starts it. Killed and reaped like any other.
    public init(socketActivatedBy activator: URL, arguments: [String] = [], account: Account = .standard) throws {
        directory = try TemporaryDirectory(prefix: "kcd")
        self.account = account
        extraArguments = arguments
        self.activator = activator
        try start()
    }

    deinit { kill() }

    /// What the daemon wrote to standard error so far.
    public var log: String { errors.text.withLock { $0 } }

    /// Whether the daemon's log says `text` within `seconds` (polled every 10 ms; it arrives through a pipe).
    public func logs(_ text: String, within seconds: Double) -> Bool {
        for _ in 0..<max(1, Int(seconds * 100)) {
            if log.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return log.contains(text)
    }

    /// The keychain directory the daemon keeps for `uid`.
    public func keychainDirectory(of uid: UInt32) -> URL {
        stateDirectory.appendingPathComponent("users/\(uid)", isDirectory: true)
    }

    /// SIGKILLs the daemon and reaps it.
    public func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Kills the daemon and starts it again on the same socket and state.
    public func restart() throws {
        kill()
        try start()
    }

    /// The system user's id and group, when the daemon runs as deployed.
    public var deployedUser: (uid: UInt32, gid: UInt32)? {
        guard account == .deployed, case .success(let user) = DeployedAccount.user else { return nil }
        return (user.uid, user.gid)
    }

    /// The command line that runs `command` as the daemon's user, with no capability (for what only the daemon's
    /// user may do to its process or files); `command` itself when the daemon runs as the invoking user. A program
    /// the daemon's user cannot reach (in a checkout under root's home) is run from a copy in ``directory``.
    public func asDaemonUser(_ command: [String]) throws -> [String] {
        guard let user = deployedUser else { return command }
        let program = try DeployedAccount.reachable(command[0], copyIn: directory)
        return [
            DeployedAccount.setpriv, "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups",
            "--inh-caps=-all", "--no-new-privs", "--", program,
        ] + command.dropFirst()
    }

    private func start() throws {
        errors.text.withLock { $0 = "" }
        let process = Process()
        let daemonArguments = ["--state-directory", stateDirectory.path, "--passcode-cost", "minimum"] + extraArguments
        // The daemon itself: the built keychaind, behind setpriv when deployed.
        var command = [BuiltExecutable.named("keychaind").path]
        var environment = ProcessInfo.processInfo.environment
        if account == .deployed {
            command = try DeployedAccount.prepare(directory: directory, executable: command[0])
            environment = DeployedAccount.environment
        }
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extraEnvironment) { $1 }
        if let activator {
            process.executableURL = activator
            process.arguments =
                ["--seqpacket", "--listen", socketPath, "--setenv=SWIFT_BACKTRACE=enable=no"] + command
                + daemonArguments
        } else {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst()) + ["--socket", socketPath] + daemonArguments
        }
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        let errors = self.errors
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            errors.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        self.process = process
        // It logs "serving" once it listens; an activator logs "Listening on" once it does, and starts the daemon on
        // the first connection.
        let ready = activator == nil ? "serving" : "Listening on"
        for _ in 0..<1_000 {
            if log.contains(ready) { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill()
        throw DaemonStartError(log: log)
    }
}

/// keychaind did not start; its log says why.
public struct DaemonStartError: Error, CustomStringConvertible {
    /// What the daemon wrote to standard error.
    public let log: String
    /// The log, introduced.
    public var description: String { "keychaind did not start: \(log)" }
}
