#if canImport(Glibc)
    import Glibc
#endif

/// Standard input, read a line at a time by the interactive session and by every prompt that reads it, through
/// one buffer so none of them loses what another read ahead.
final class StandardInput {
    private var buffer: [UInt8] = []
    private var isAtEnd = false
    /// The longest line kept; the rest of a longer line is read and dropped (macOS's tool reads 4096 bytes).
    static let maximumLineLength = 64 * 1024

    /// Whether standard input is a terminal.
    let isTerminal = isatty(STDIN_FILENO) == 1

    /// The next line without its newline, or `nil` at the end of input. The caller zeroes it when it holds a
    /// secret.
    func readLine() -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<min(newline, Self.maximumLineLength)])
                zero(upTo: newline + 1)
                return line
            }
            if isAtEnd {
                guard !buffer.isEmpty else { return nil }
                let line = Array(buffer.prefix(Self.maximumLineLength))
                zero(upTo: buffer.count)
                return line
            }
            fill()
        }
    }

    /// Reads more input into the buffer, or notes the end.
    private func fill() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { SecretReader.zero(&chunk) }
        while true {
            let count = read(STDIN_FILENO, &chunk, chunk.count)
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return
            }
            if count < 0, errno == EINTR { continue }
            isAtEnd = true
            return
        }
    }

    /// Removes the first `count` bytes, zeroing them first: they may have been a secret.
    private func zero(upTo count: Int) {
        for index in 0..<count { buffer[index] = 0 }
        buffer.removeFirst(count)
    }
}
