import KeychainCore
import KeychainPrompts

#if canImport(Glibc)
    import Glibc
#endif

/// The controlling terminal (`/dev/tty`), where prompts for secrets go, whatever standard input and output are.
final class TerminalDevice {
    private let descriptor: Int32

    /// The controlling terminal, or `nil` when the process has none (a daemon, a CI job, a test's child process).
    static func open() -> TerminalDevice? {
        let descriptor = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        return descriptor >= 0 ? TerminalDevice(descriptor: descriptor) : nil
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Turns echo off, writes `prompt` and reads a line, as `getpass` does; `nil` when the terminal ends the input
    /// (Control-D) or cannot be read. A line longer than ``InputLimits/secretByteCount`` is read to its end and
    /// refused whole. Echo comes back on afterwards, also when a signal ends the process meanwhile. The caller
    /// zeroes the returned bytes.
    func readSecret(prompt: String) -> StandardInput.Line? {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        // The prompt shared with KeychainCore's TerminalPrompter: one at a time, and echo restored when a signal
        // ends the process meanwhile. Control-C stays a signal here (ISIG on): it ends the tool, as macOS's does.
        let line = TerminalRestorer.lock.withLock { _ in
            let wakeReader = TerminalRestorer.arm(descriptor: descriptor, settings: original)
            defer { TerminalRestorer.disarm(wakeReader: wakeReader) }
            // Echo goes off before the prompt appears, as getpass does: what is typed once the prompt shows is never
            // echoed, nor discarded by the flush that comes with the change.
            tcsetattr(descriptor, TCSAFLUSH, &silent)
            Console.writeAll(Array(prompt.utf8), to: descriptor)
            let line = readLine(limit: InputLimits.secretByteCount)
            tcsetattr(descriptor, TCSAFLUSH, &original)
            return line
        }
        Console.writeAll([UInt8(ascii: "\n")], to: descriptor)
        return line
    }

    /// Reads up to a newline, a byte at a time (nothing after the newline is taken from the terminal); `nil` at the
    /// end of input with nothing read.
    private func readLine(limit: Int) -> StandardInput.Line? {
        let line = ZeroingBuffer()
        var length = 0
        var byte: UInt8 = 0
        defer { byte = 0 }
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else {
                if length == 0 { return nil }
                break
            }
            if byte == UInt8(ascii: "\n") { break }
            length += 1
            if length <= limit { line.append(byte) }
        }
        guard length <= limit else { return .tooLong(byteCount: length) }
        return .line(Array(line.bytes))
    }
}
