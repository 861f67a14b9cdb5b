import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program reading lines (a `security -i` session, a probe's) on pipes that the test keeps open: it sends lines,
/// waits for output, and looks at the running process (its `/proc` entries, its memory) while the program waits
/// for the next line. It runs in a session of its own, without a controlling terminal. Killed and reaped when
/// released, also when a test fails half-way.
public final class PipeSession {
    /// The process (after any wrapper, such as `setpriv`, has executed the tool in its place).
    public let pid: pid_t
    private let input: ChildPipe
    private let output: ChildPipe
    private let errors: PipeReader
    private var received: [UInt8] = []
    private var reaped = false

    /// Starts `command` (the program, or a wrapper that executes it) with `arguments` and `environment`.
    public init(_ command: String, _ arguments: [String], environment: [String: String]) throws {
        input = try ChildPipe()
        output = try ChildPipe()
        let stderr = try ChildPipe()
        pid = try Spawn.start(
            command, arguments, environment: environment,
            descriptors: [input.reading, output.writing, stderr.writing], controllingTerminal: nil)
        input.closeReading()
        output.closeWriting()
        stderr.closeWriting()
        errors = PipeReader(stderr)
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            _ = try? Spawn.waitStatus(pid)
        }
    }

    /// Sends one line of input.
    public func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(input.writing, $0.baseAddress, $0.count) }
    }

    /// Reads standard output until it ends with `text` (or throws after `seconds`).
    public func waitForOutput(endingWith text: String, seconds: Int32 = 30) throws {
        let wanted = Array(text.utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.suffix(wanted.count).elementsEqual(wanted) {
            var poller = pollfd(fd: output.reading, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, seconds * 1000) == 1 else {
                throw SpawnError(
                    message: "\"\(text)\" never came; the output is \(String(decoding: received, as: UTF8.self))")
            }
            let count = read(output.reading, &buffer, buffer.count)
            guard count > 0 else { throw SpawnError(message: "the output ended before \"\(text)\"") }
            received += buffer[..<count]
        }
    }

    /// The next line of standard output (without its newline), waiting for it up to `seconds`; what was read before
    /// it is consumed.
    public func readLine(seconds: Int32 = 30) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) {
            var poller = pollfd(fd: output.reading, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, seconds * 1000) == 1 else {
                throw SpawnError(message: "no line came; the output is \(String(decoding: received, as: UTF8.self))")
            }
            let count = read(output.reading, &buffer, buffer.count)
            guard count > 0 else {
                throw SpawnError(message: "the output ended; it was \(String(decoding: received, as: UTF8.self))")
            }
            received += buffer[..<count]
        }
        let end = received.firstIndex(of: UInt8(ascii: "\n")) ?? received.endIndex
        defer { received.removeSubrange(...end) }
        return String(decoding: received[..<end], as: UTF8.self)
    }

    /// Ends the input, waits for the tool to exit; returns its status and what it wrote on standard error.
    public func finish() throws -> (status: Int32, errors: String) {
        input.closeWriting()
        _ = output.readAll()
        let status = try Spawn.wait(pid)
        reaped = true
        return (status, String(decoding: errors.wait(), as: UTF8.self))
    }
}
