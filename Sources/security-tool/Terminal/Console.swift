import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and standard error, kept in order: output is buffered and written out before anything goes to
/// standard error, so a session's lines interleave as they were produced (`security -v -i` echoes each command
/// on standard error before its output).
final class Console {
    private var pending: [UInt8] = []

    /// Appends text to standard output.
    func print(_ text: String) {
        pending.append(contentsOf: text.utf8)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Appends bytes to standard output, as they are.
    func write(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
    }

    /// Writes a line to standard error, after any pending output.
    func printError(_ text: String) {
        flush()
        Self.writeAll(Array((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes pending output to standard output.
    func flush() {
        guard !pending.isEmpty else { return }
        Self.writeAll(pending, to: STDOUT_FILENO)
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes every byte, retrying short writes and interrupted calls; a closed stream drops the rest.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
