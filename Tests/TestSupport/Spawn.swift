#if canImport(Glibc)
    import Glibc
#endif

/// A failure to start or wait for a child.
public struct SpawnError: Error, CustomStringConvertible {
    /// What failed.
    public let message: String
    /// The message.
    public var description: String { message }

    /// An error saying `message`.
    public init(message: String) {
        self.message = message
    }
}

/// `posix_spawn` with what Foundation's `Process` cannot do: a new session (`setsid`), and optionally a terminal
/// as the child's controlling terminal.
public enum Spawn {
    /// glibc's `POSIX_SPAWN_SETSID`, which Swift's Glibc module does not import (it needs `_GNU_SOURCE`).
    private static let setSessionFlag: Int16 = 0x80

    /// Starts `path` in a new session with `descriptors` as its standard input, output and error. When
    /// `controllingTerminal` names a terminal device, the child opens it as descriptor 3 first: a session leader
    /// that opens a terminal makes it its controlling terminal (`/dev/tty`).
    public static func start(
        _ path: String, _ arguments: [String], environment: [String: String], descriptors: [Int32],
        controllingTerminal: String?
    ) throws -> pid_t {
        try start(
            path, bytes: arguments.map { Array($0.utf8) }, environment: environment, descriptors: descriptors,
            controllingTerminal: controllingTerminal)
    }

    /// Starts `path` as ``start(_:_:environment:descriptors:controllingTerminal:)`` does, with arguments given as
    /// bytes (argv need not be UTF-8). A negative descriptor leaves that standard stream closed in the child.
    public static func start(
        _ path: String, bytes arguments: [[UInt8]], environment: [String: String], descriptors: [Int32],
        controllingTerminal: String?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in descriptors.enumerated() {
            if source < 0 {
                posix_spawn_file_actions_addclose(&actions, Int32(target))
            } else {
                posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
            }
        }
        // After the dup2s, so the descriptor it takes is no longer needed as a source.
        if let controllingTerminal {
            posix_spawn_file_actions_addopen(&actions, 3, controllingTerminal, O_RDWR, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A clean signal state, as a shell gives its commands: the test runner's threads may block or ignore
        // signals the tool relies on (SIGINT at a prompt).
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, setSessionFlag | Int16(POSIX_SPAWN_SETSIGMASK) | Int16(POSIX_SPAWN_SETSIGDEF))
        let argv = ([Array(path.utf8)] + arguments).map(Self.cString) + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { $0?.deallocate() }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnError(message: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// A `malloc`ed, NUL-terminated copy of `bytes`, freed by the caller.
    private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        return copy
    }

    /// Waits for the child; returns its exit status, or throws when a signal ended it.
    public static func wait(_ pid: pid_t) throws -> Int32 {
        let status = try waitStatus(pid)
        guard status & 0x7F == 0 else { throw SpawnError(message: "the child died of signal \(status & 0x7F)") }
        return (status >> 8) & 0xFF
    }

    /// Waits for the child; returns `waitpid`'s status word.
    public static func waitStatus(_ pid: pid_t) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw SpawnError(message: "waitpid: \(errno)") }
        }
        return status
    }
}
