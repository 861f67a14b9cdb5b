import Foundation
import KeychainClient
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The release `keychaind` built beside this bench, started on a socket and state directory in a temporary
/// directory of its own; ``stop()`` (also on release) SIGKILLs and reaps it and removes the directory, so a failed
/// phase leaves no daemon behind.
final class BenchDaemon {
    /// The socket clients connect to.
    let socketPath: String
    private let directory: URL
    private var pid: pid_t = 0
    /// Whether the socket is outside ``directory`` (the default socket), to be removed by ``stop()`` itself.
    private let socketOutside: Bool

    /// The daemon beside the bench, or `nil` when none is built there.
    static var executable: String? {
        let path = CLIBench.builtBeside("keychaind")
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Starts the daemon and returns once it answers on its socket: `socket`, or one in its temporary directory.
    init(executable: String, socket: String? = nil) throws {
        directory = try temporaryDirectory()
        socketPath = socket ?? directory.appendingPathComponent("keychaind.sock").path
        socketOutside = socket != nil
        let state = directory.appendingPathComponent("state").path
        let log = directory.appendingPathComponent("keychaind.log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments: [String] = [executable, "--state-directory", state, "--socket", socketPath]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        for _ in 0..<1000 {
            if DaemonClient.answers(at: socketPath) { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = 0
                break
            }
            usleep(10_000)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        stop()
        throw BenchError("keychaind did not answer at \(socketPath): \(text)")
    }

    deinit { stop() }

    /// The daemon's process id (for a profiler to attach to).
    var processID: pid_t { pid }

    /// A client of its own (its own connection, and so its own thread in the daemon).
    func client() -> DaemonClient {
        DaemonClient(socketPath: socketPath)
    }

    /// SIGKILLs and reaps the daemon and removes its directory (idempotent).
    func stop() {
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            pid = 0
        }
        if socketOutside { unlink(socketPath) }
        try? FileManager.default.removeItem(at: directory)
    }
}
