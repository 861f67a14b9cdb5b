import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// A pinentry program started for one prompt, its standard input and output one end of a socket pair (no shell
/// between). It is always reaped: ``finish(grace:)`` waits for it to exit and kills it when it does not.
final class PinentryProcess {
    /// The child's process id.
    let pid: pid_t
    /// This process's end of the socket pair.
    let descriptor: Int32
    private var isReaped = false

    /// Starts `path` with `environment` and this process's real user and group, or says why it could not be
    /// started.
    static func start(path: String, environment: [String: String]) -> Result<PinentryProcess, PromptFailure> {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return .failure(.init("cannot make a socket for pinentry: \(String(cString: strerror(errno)))"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        // The child starts with every signal at its default and none blocked, whatever this process ignores.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        // RESETIDS: the child runs as this process's real user and group, never with a setgid app's group (which is
        // what lends the app its identity with keychaind).
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_RESETIDS))

        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        let variables: [UnsafeMutablePointer<CChar>?] =
            environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments + variables { free(pointer) }
        }
        var pid: pid_t = 0
        var status = posix_spawn(&pid, path, &actions, &attributes, arguments, variables)
        // ETXTBSY: the program is open for writing somewhere, typically for an instant, by a child another
        // thread is starting (it inherits descriptors until its exec closes them) while the program is being
        // written or installed. Worth a few short retries.
        for _ in 0..<20 where status == ETXTBSY {
            usleep(10_000)
            status = posix_spawn(&pid, path, &actions, &attributes, arguments, variables)
        }
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            return .failure(.init("cannot start pinentry \(path): \(String(cString: strerror(status)))"))
        }
        return .success(PinentryProcess(pid: pid, descriptor: ends[0]))
    }

    private init(pid: pid_t, descriptor: Int32) {
        self.pid = pid
        self.descriptor = descriptor
    }

    deinit {
        finish(grace: .zero)
    }

    /// Closes the connection (pinentry exits at the end of its input), waits up to `grace` for the child to exit,
    /// then kills it (SIGKILL) and reaps it.
    func finish(grace: Duration) {
        guard !isReaped else { return }
        isReaped = true
        close(descriptor)
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return }
            if ContinuousClock.now >= deadline { break }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}

/// Why a prompt could not be shown, for ``SecretPromptOutcome/unavailable(_:)``.
struct PromptFailure: Error {
    /// The reason, for the user.
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}
