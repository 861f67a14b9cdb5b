import Foundation
import Synchronization

/// A real `keychaind` (built beside the test bundle) on a temporary socket and state directory of one test's own,
/// with the cheapest passcode cost. Started by `init`, which returns once the daemon listens; SIGKILLed and reaped
/// when released (or by ``kill()``), whatever the test's outcome.
public final class DaemonProcess: @unchecked Sendable {
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
    /// The socket activator the daemon is started through (`systemd-socket-activate`), if any.
    private let activator: URL?
    private let errors = Output()

    private final class Output: Sendable {
        let text = Mutex("")
    }

    /// The file the daemon reads the time from, when started with `readsClockFile`.
    public var clockFile: URL { directory.url.appendingPathComponent("clock") }

    /// Starts a daemon; `arguments` are added to its command line (`--idle-lock 1`, …). With `readsClockFile`, it
    /// reads the time from ``clockFile`` (the system clock until something writes it).
    public init(arguments: [String] = [], readsClockFile: Bool = false) throws {
        directory = try TemporaryDirectory(prefix: "kcd")
        extraArguments =
            arguments + (readsClockFile ? ["--clock", directory.url.appendingPathComponent("clock").path] : [])
        activator = nil
        try start()
    }

    /// Starts a daemon through a socket activator (`systemd-socket-activate` at `activator`), which listens on
    /// ``socketPath`` with `SOCK_SEQPACKET` and, on the first connection, execs keychaind in its own process with
    /// `LISTEN_FDS` (no `--socket`): as systemd's `keychaind.socket` starts it. Killed and reaped like any other.
    public init(socketActivatedBy activator: URL, arguments: [String] = []) throws {
        directory = try TemporaryDirectory(prefix: "kcd")
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

    private func start() throws {
        errors.text.withLock { $0 = "" }
        let process = Process()
        let daemonArguments = ["--state-directory", stateDirectory.path, "--passcode-cost", "minimum"] + extraArguments
        if let activator {
            process.executableURL = activator
            process.arguments =
                ["--seqpacket", "--listen", socketPath, "--setenv=SWIFT_BACKTRACE=enable=no"]
                + [BuiltExecutable.named("keychaind").path] + daemonArguments
        } else {
            process.executableURL = BuiltExecutable.named("keychaind")
            process.arguments = ["--socket", socketPath] + daemonArguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
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
