import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `security` with a pseudo-terminal as its controlling terminal and standard input, as a user at a terminal
/// runs it: the test reads what the tool writes to the terminal (its prompts) and types answers. Standard output
/// and error are pipes, kept apart from the terminal.
final class TerminalSession {
    private let master: Int32
    private let child: pid_t
    private let output: PipeReader
    private let errors: PipeReader
    /// What the tool wrote to the terminal so far.
    private var written: [UInt8] = []
    /// How much of it earlier waits have matched.
    private var matched = 0
    /// Whether the terminal echoed before the tool started (read before the spawn: after it, the tool may
    /// already have turned echo off for its prompt).
    let echoedBeforeStart: Bool

    /// Starts `security arguments…` on a new terminal (standard input; standard error too when `errorsOnTerminal`,
    /// as in an interactive shell, else a pipe).
    init(_ arguments: [String], process: SecurityProcess, errorsOnTerminal: Bool = false) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0, let name = ttyname(slave) else {
            throw SpawnError(message: "openpty: \(errno)")
        }
        let path = String(cString: name)
        defer { close(slave) }
        let stdout = try ChildPipe()
        let stderr = try ChildPipe()
        self.master = master
        var settings = termios()
        tcgetattr(master, &settings)
        echoedBeforeStart = settings.c_lflag & tcflag_t(ECHO) != 0
        child = try Spawn.start(
            SecurityProcess.executable, arguments, environment: process.processEnvironment,
            descriptors: [slave, stdout.writing, errorsOnTerminal ? slave : stderr.writing], controllingTerminal: path)
        stdout.closeWriting()
        stderr.closeWriting()
        output = PipeReader(stdout)
        errors = PipeReader(stderr)
    }

    /// Whether the child has been waited for.
    private var reaped = false

    deinit {
        // A test that failed half-way leaves the tool waiting at a prompt: end it, and reap it.
        if !reaped {
            kill(child, SIGKILL)
            _ = try? Spawn.waitStatus(child)
        }
        close(master)
    }

    /// Everything the tool wrote to the terminal so far.
    var screen: String { String(decoding: written, as: UTF8.self) }

    /// Reads the terminal until `text` appears after what earlier waits matched (or throws after `seconds`).
    func waitFor(_ text: String, seconds: Int32 = 30) throws {
        let wanted = Array(text.utf8)
        while true {
            if let end = Self.end(of: wanted, in: written, from: matched) {
                matched = end
                return
            }
            guard readMore(timeout: seconds * 1000) else {
                throw SpawnError(message: "\"\(text)\" never appeared on the terminal; it shows: \(screen)")
            }
        }
    }

    /// Types a line (and Return) on the terminal.
    func type(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Presses Control-C: the terminal sends SIGINT to the tool.
    func interrupt() {
        var character: UInt8 = 3
        _ = write(master, &character, 1)
    }

    /// Whether the terminal echoes what is typed.
    var echoes: Bool {
        var settings = termios()
        tcgetattr(master, &settings)
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Waits for the tool to end; returns the signal that ended it, or `nil` when it exited.
    func signalThatEnded() throws -> Int32? {
        while readMore(timeout: 200) {}
        let status = try Spawn.waitStatus(child)
        reaped = true
        return status & 0x7F == 0 ? nil : status & 0x7F
    }

    /// Waits for the tool to exit; returns its status and output. The rest of what it wrote to the terminal is
    /// in ``screen``.
    func finish() throws -> SecurityProcess.Result {
        while readMore(timeout: 200) {}
        let status = try Spawn.waitStatus(child)
        reaped = true
        guard status & 0x7F == 0 else { throw SpawnError(message: "the tool died of signal \(status & 0x7F)") }
        return SecurityProcess.Result(
            status: (status >> 8) & 0xFF, output: String(decoding: output.wait(), as: UTF8.self),
            errors: String(decoding: errors.wait(), as: UTF8.self))
    }

    /// Reads what the terminal has within `timeout` milliseconds; `false` when nothing came or it closed.
    private func readMore(timeout: Int32) -> Bool {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) == 1 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        guard count > 0 else { return false }
        written += buffer[..<count]
        return true
    }

    /// Where the first `needle` at or after `start` ends in `haystack`.
    private static func end(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count - start >= needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index + needle.count
        }
        return nil
    }
}
