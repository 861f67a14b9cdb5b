import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the `security` executable built beside the test bundle as a subprocess, in a session of its own, so it never
/// has a controlling terminal (a test run from a terminal must not be able to prompt on it): prompts then read
/// standard input, and an implicit passcode prompt fails as it does in CI.
struct SecurityProcess {
    /// What a run produced.
    struct Result {
        /// The exit status (the low byte of the tool's result).
        let status: Int32
        /// Standard output.
        let output: String
        /// Standard error.
        let errors: String
    }

    /// `KEYCHAIN_HOME` for the run: the default keychain's directory.
    let home: URL
    /// Extra environment variables.
    var environment: [String: String] = [:]

    /// The executable's path.
    static var executable: String {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("security").path
    }

    /// Runs `security arguments…` with `input` on standard input; returns its status and output.
    func run(_ arguments: [String], input: String = "") throws -> Result {
        let stdin = try ChildPipe()
        let stdout = try ChildPipe()
        let stderr = try ChildPipe()
        let child = try Spawn.start(
            Self.executable, arguments, environment: processEnvironment,
            descriptors: [stdin.reading, stdout.writing, stderr.writing], controllingTerminal: nil)
        stdin.closeReading()
        stdout.closeWriting()
        stderr.closeWriting()
        // Write and read on separate threads: a large output must not block the child while we still write.
        let writer = Thread { stdin.writeAll(Array(input.utf8)) }
        writer.start()
        let errorsReader = PipeReader(stderr)
        let output = stdout.readAll()
        let errors = errorsReader.wait()
        let status = try Spawn.wait(child)
        return Result(
            status: status, output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self))
    }

    /// The environment of a run: this process's, with `KEYCHAIN_HOME` pointing at the test's directory.
    var processEnvironment: [String: String] {
        var values = ProcessInfo.processInfo.environment
        values["KEYCHAIN_HOME"] = home.path
        values["SWIFT_BACKTRACE"] = "enable=no"
        values["KEYCHAIN_ENTITLEMENTS"] = nil
        values.merge(environment) { _, new in new }
        return values
    }
}

/// One pipe's two ends, closed when released.
final class ChildPipe: @unchecked Sendable {
    private(set) var reading: Int32
    private(set) var writing: Int32

    init() throws {
        var descriptors: [Int32] = [0, 0]
        // Close-on-exec at once (Glibc does not import pipe2), so other tests' children do not inherit our ends.
        guard pipe(&descriptors) == 0 else { throw SpawnError(message: "pipe: \(errno)") }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        reading = descriptors[0]
        writing = descriptors[1]
    }

    deinit {
        closeReading()
        closeWriting()
    }

    func closeReading() {
        if reading >= 0 { close(reading) }
        reading = -1
    }

    func closeWriting() {
        if writing >= 0 { close(writing) }
        writing = -1
    }

    /// Writes everything, then closes the writing end (the reader sees the end of input).
    func writeAll(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(writing, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            offset += count
        }
        closeWriting()
    }

    /// Reads to the end of input.
    func readAll() -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(reading, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return result }
            result += buffer[..<count]
        }
    }
}

/// Reads a pipe to its end on a thread of its own.
final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []

    init(_ pipe: ChildPipe) {
        Thread { [self] in
            bytes = pipe.readAll()
            done.signal()
        }.start()
    }

    /// The bytes, once the pipe has ended.
    func wait() -> [UInt8] {
        done.wait()
        return bytes
    }
}

/// A failure to start or wait for a child.
struct SpawnError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// `posix_spawn` with what Foundation's `Process` cannot do: a new session (`setsid`), and optionally a terminal
/// as the child's controlling terminal.
enum Spawn {
    /// glibc's `POSIX_SPAWN_SETSID`, which Swift's Glibc module does not import (it needs `_GNU_SOURCE`).
    private static let setSessionFlag: Int16 = 0x80

    /// Starts `path` in a new session with `descriptors` as its standard input, output and error. When
    /// `controllingTerminal` names a terminal device, the child opens it as descriptor 3 first: a session leader
    /// that opens a terminal makes it its controlling terminal (`/dev/tty`).
    static func start(
        _ path: String, _ arguments: [String], environment: [String: String], descriptors: [Int32],
        controllingTerminal: String?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in descriptors.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
        }
        // After the dup2s, so the descriptor it takes is no longer needed as a source.
        if let controllingTerminal {
            posix_spawn_file_actions_addopen(&actions, 3, controllingTerminal, O_RDWR, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, setSessionFlag)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnError(message: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Waits for the child; returns its exit status, or throws when a signal ended it.
    static func wait(_ pid: pid_t) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw SpawnError(message: "waitpid: \(errno)") }
        }
        guard status & 0x7F == 0 else { throw SpawnError(message: "the child died of signal \(status & 0x7F)") }
        return (status >> 8) & 0xFF
    }
}
