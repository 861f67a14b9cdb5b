#if canImport(Glibc)
    import Glibc
#endif

/// Standard input, read a line at a time by the interactive session and by every prompt that reads it, through
/// one buffer so none of them loses what another read ahead.
///
/// A line is returned whole or refused whole: one longer than the reader's limit is read to its end and dropped
/// (zeroed), and reported as ``Line/tooLong(byteCount:)``, so neither a shortened secret nor the rest of a line
/// is ever taken for something else. Reading is linear in the input's length; every buffer that held input is
/// zeroed, since input may be a secret.
final class StandardInput {
    /// A line of input.
    enum Line {
        /// The line, without its newline. The caller zeroes it when it holds a secret.
        case line([UInt8])
        /// A line longer than the limit, read and dropped; how long it was.
        case tooLong(byteCount: Int)
    }

    private let buffer = ZeroingBuffer(capacity: 64 << 10)
    /// How many bytes at the front of the buffer are known to hold no newline.
    private var scanned = 0
    private var isAtEnd = false
    private let descriptor: Int32

    /// Standard input (another descriptor in tests).
    init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
        isTerminal = isatty(descriptor) == 1
    }

    /// Whether standard input is a terminal.
    let isTerminal: Bool

    /// The next line, or `nil` at the end of input. A line longer than `limit` bytes is refused whole.
    func readLine(limit: Int) -> Line? {
        while true {
            let bytes = buffer.bytes
            if let newline = Self.newline(in: bytes, from: scanned) {
                scanned = 0
                guard newline <= limit else {
                    buffer.removeFirst(newline + 1)
                    return .tooLong(byteCount: newline)
                }
                let line = Array(bytes[..<newline])
                buffer.removeFirst(newline + 1)
                return .line(line)
            }
            scanned = bytes.count
            if bytes.count > limit { return .tooLong(byteCount: skipRestOfLine()) }
            if isAtEnd {
                guard !buffer.isEmpty else { return nil }
                scanned = 0
                let line = Array(bytes)
                buffer.removeAll()
                return .line(line)
            }
            fill()
        }
    }

    /// Drops the line being read, through its newline; returns its length.
    private func skipRestOfLine() -> Int {
        var length = 0
        while true {
            let bytes = buffer.bytes
            if let newline = Self.newline(in: bytes, from: 0) {
                buffer.removeFirst(newline + 1)
                scanned = 0
                return length + newline
            }
            length += bytes.count
            buffer.removeAll()
            scanned = 0
            if isAtEnd { return length }
            fill()
        }
    }

    /// The index of the first newline in `bytes` at or after `start` (`memchr`: a generic scan is many times slower
    /// in a debug build).
    private static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        else { return nil }
        return UnsafeRawPointer(found) - base
    }

    /// Reads more input into the buffer, or notes the end.
    private func fill() {
        let room = buffer.freeSpace(atLeast: 64 << 10)
        while true {
            let count = read(descriptor, room.baseAddress, room.count)
            if count > 0 {
                buffer.didAppend(count)
                return
            }
            if count < 0, errno == EINTR { continue }
            isAtEnd = true
            return
        }
    }
}
