import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process a test starts in a session of its own (``Spawn``), with a pseudo-terminal as its controlling
/// terminal or with none at all; its standard output and error are collected as it writes them. It is killed and
/// reaped when the value is released, so a failing test leaves no process behind.
public final class SpawnedProcess {
    /// The child's process id.
    public let pid: pid_t
    private let output: PipeReader
    private let errors: PipeReader
    private var status: Int32?

    /// Starts `executable` with `arguments` and `environment`. With `terminal`, the pseudo-terminal's slave side
    /// is its standard input and controlling terminal (`/dev/tty`); without, standard input is `/dev/null` and
    /// the process has no controlling terminal at all.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String], terminal: PseudoTerminal? = nil
    ) throws {
        let input = open(terminal?.slavePath ?? "/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard input >= 0 else { throw SpawnError(message: "cannot open the child's input: \(errno)") }
        defer { close(input) }
        let outputPipe = try ChildPipe()
        let errorPipe = try ChildPipe()
        pid = try Spawn.start(
            executable.path, arguments, environment: environment,
            descriptors: [input, outputPipe.writing, errorPipe.writing], controllingTerminal: terminal?.slavePath)
        outputPipe.closeWriting()
        errorPipe.closeWriting()
        output = PipeReader(outputPipe)
        errors = PipeReader(errorPipe)
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = try? Spawn.waitStatus(pid)
        }
    }

    /// Sends `signal` to the child, unless it has been reaped.
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
            if waitpid(pid, &raw, WNOHANG) == pid {
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

    /// Its standard output, to the end (once it has exited).
    public func readOutput() -> String { String(decoding: output.wait(), as: UTF8.self) }

    /// Its standard error, to the end (once it has exited).
    public func readErrors() -> String { String(decoding: errors.wait(), as: UTF8.self) }
}
