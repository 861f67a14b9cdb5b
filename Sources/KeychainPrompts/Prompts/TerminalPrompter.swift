import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Asks on the controlling terminal (`/dev/tty`), whatever standard input and output are, as `getpass` does:
/// echo off, each key read as it is typed into guarded memory.
///
/// Return ends the secret; Control-C, Control-D, the end of input or an empty line cancel; Backspace and
/// Control-U edit. While the prompt is up, echo, line editing and the keyboard's signals (`ISIG`) are off, so
/// Control-C is read as a key; the terminal's settings come back on every path, also when a signal from another
/// process ends the program meanwhile (``TerminalRestorer``). Without a controlling terminal the prompt is
/// ``SecretPromptOutcome/unavailable(_:)``.
package struct TerminalPrompter: SecretPrompter {
    /// The terminal device: `/dev/tty`, the calling process's controlling terminal.
    private let devicePath: String

    /// A prompter on the controlling terminal.
    package init() {
        devicePath = "/dev/tty"
    }

    /// Asks on the terminal; see the type's description.
    package func ask(_ request: SecretPromptRequest) -> SecretPromptOutcome {
        let descriptor = open(devicePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .unavailable("no controlling terminal (\(devicePath): \(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        return TerminalRestorer.lock.withLock { _ in prompt(on: descriptor, request) }
    }

    private func prompt(on descriptor: Int32, _ request: SecretPromptRequest) -> SecretPromptOutcome {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else {
            return .unavailable("\(devicePath) is not a terminal: \(String(cString: strerror(errno)))")
        }
        let accumulator: SecretAccumulator
        do {
            accumulator = try SecretAccumulator()
        } catch {
            return .unavailable("cannot hold the secret: \(error.message)")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &silent.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        let wakeReader = TerminalRestorer.arm(descriptor: descriptor, settings: original)
        defer { TerminalRestorer.disarm(wakeReader: wakeReader) }
        // Echo goes off before the prompt shows, as getpass does: nothing typed at the prompt is echoed, and what
        // was typed ahead of it is discarded rather than taken for the secret.
        guard tcsetattr(descriptor, TCSAFLUSH, &silent) == 0 else {
            return .unavailable("cannot turn off echo on \(devicePath): \(String(cString: strerror(errno)))")
        }
        let text = PromptText(request)
        var lines = [text.description]
        if let retry = text.retry { lines.insert(retry, at: 0) }
        Self.write(lines.joined(separator: "\n") + "\n" + text.label + " ", to: descriptor)
        let ending = read(from: descriptor, into: accumulator, wakeReader: wakeReader)
        tcsetattr(descriptor, TCSAFLUSH, &original)
        // Return was not echoed: end the prompt's line.
        Self.write("\n", to: descriptor)
        switch ending {
        case .returned:
            if accumulator.isOverLong {
                accumulator.removeAll()
                return .unavailable(
                    "the secret typed is longer than \(SecretAccumulator.maximumByteCount) bytes; it was not taken")
            }
            do {
                guard let secret = try accumulator.finish() else { return .canceled }
                return .entered(secret)
            } catch {
                return .unavailable("cannot hold the secret: \(error.message)")
            }
        case .canceled:
            accumulator.removeAll()
            return .canceled
        case .failed(let reason):
            accumulator.removeAll()
            return .unavailable(reason)
        }
    }

    /// How reading the secret ended.
    private enum Ending {
        case returned
        case canceled
        case failed(String)
    }

    /// Reads keys until Return, a cancel, the end of input, or a signal (`wakeReader` readable).
    private func read(from descriptor: Int32, into secret: SecretAccumulator, wakeReader: Int32) -> Ending {
        var byte: UInt8 = 0
        defer { byte = 0 }
        var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if wakeReader >= 0 { watched.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)) }
        while true {
            let ready = poll(&watched, nfds_t(watched.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed("cannot wait for the terminal: \(String(cString: strerror(errno)))")
            }
            if watched.count > 1, watched[1].revents != 0 { return .canceled }
            guard watched[0].revents != 0 else { continue }
            let count = Glibc.read(descriptor, &byte, 1)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                // EIO: the terminal hung up.
                return errno == EIO
                    ? .canceled : .failed("cannot read \(devicePath): \(String(cString: strerror(errno)))")
            }
            guard count == 1 else { return .canceled }
            switch byte {
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"): return .returned
            case 0x03, 0x04: return .canceled  // Control-C, Control-D
            case 0x7F, 0x08: secret.removeLastCharacter()  // Delete, Backspace
            case 0x15: secret.removeAll()  // Control-U
            default: secret.append(byte)
            }
        }
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { DescriptorWriting.writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }
}
