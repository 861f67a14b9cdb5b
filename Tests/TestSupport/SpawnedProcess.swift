import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process a test starts in a session of its own, with a pseudo-terminal as its controlling terminal or
/// with none at all; its standard output and error are collected. It is killed and reaped when the value is
/// released, so a failing test leaves no process behind.
public final class SpawnedProcess {
    /// The child's process id.
    public let pid: pid_t
    private let output: Int32
    private let errors: Int32
    private var status: Int32?

    /// Why a process could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// Starts `executable` with `arguments` and `environment` as the leader of a new session. With `terminal`,
    /// its standard input is the pseudo-terminal's slave side, which (opened by a session leader with no
    /// controlling terminal) becomes its controlling terminal; without, standard input is `/dev/null` and the
    /// process has no controlling terminal at all.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String], terminal: PseudoTerminal? = nil
    ) throws {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errorPipe) == 0 else {
            close(outputPipe[0])
            close(outputPipe[1])
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in outputPipe + errorPipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // glibc runs setsid before the file actions, so this open makes the slave the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, terminal?.slavePath ?? "/dev/null", O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], STDERR_FILENO)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with every signal at its default and none blocked, whatever the test runner's thread
        // blocks or ignores.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        // POSIX_SPAWN_SETSID is glibc's 0x80 (Swift's Glibc module does not import the GNU name).
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | 0x80)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        close(outputPipe[1])
        close(errorPipe[1])
        guard spawned == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw Failure(description: "posix_spawn \(executable.path): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        output = outputPipe[0]
        errors = errorPipe[0]
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var ignored: Int32 = 0
            while waitpid(pid, &ignored, 0) < 0, errno == EINTR {}
        }
        close(output)
        close(errors)
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        if status == nil { kill(pid, signal) }
    }

    /// Waits up to `timeout` for the child to exit; its wait status (`waitpid`'s), or `nil` if it is still running.
    @discardableResult
    public func wait(timeout: Duration = .seconds(30)) -> Int32? {
        if let status { return status }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid {
                status = raw
                return raw
            }
            usleep(10_000)
        }
        return nil
    }

    /// The exit code when the child exited normally.
    public var exitCode: Int32? {
        guard let status, status & 0x7F == 0 else { return nil }
        return (status >> 8) & 0xFF
    }

    /// The signal that ended the child, when one did.
    public var terminatingSignal: Int32? {
        guard let status, status & 0x7F != 0, status & 0x7F != 0x7F else { return nil }
        return status & 0x7F
    }

    /// Its standard output, once it has exited (read to the end).
    public func readOutput() -> String { Self.readAll(output) }

    /// Its standard error, once it has exited (read to the end).
    public func readErrors() -> String { Self.readAll(errors) }

    private static func readAll(_ descriptor: Int32) -> String {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data += chunk[..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }
}
