import Foundation
import KeychainCore
import KeychainPrompts
import Security

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and standard error, kept in order: output is buffered and written out before anything goes to
/// standard error, so a session's lines interleave as they were produced (`security -v -i` echoes each command
/// on standard error before its output).
///
/// Output may hold passwords (`-w`, `-g`, `dump-keychain -d`): the buffer is zeroed once written. A write that
/// fails (a full disk, a closed stream, a reader gone) is remembered, and ``finish(_:)`` turns it into a message on
/// standard error and a non-zero result: no output is ever lost silently.
final class Console {
    private let pending = ZeroingBuffer()
    private let output: Int32
    private let errors: Int32
    /// The error (`errno`) of the first write to standard output that failed; what followed it was dropped.
    private(set) var outputFailure: Int32?
    /// The error of the first write to standard error that failed.
    private(set) var errorFailure: Int32?
    /// Whether ``finish(_:)`` has reported the output failure (once is enough).
    private var isFailureReported = false

    /// A console on standard output and standard error (other descriptors in tests).
    init(output: Int32 = STDOUT_FILENO, errors: Int32 = STDERR_FILENO) {
        self.output = output
        self.errors = errors
    }

    /// Whether some output could not be written.
    var hasFailed: Bool { outputFailure != nil || errorFailure != nil }

    /// Appends text and a newline to standard output.
    func print(_ text: String) {
        pending.append(contentsOf: text.utf8)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Appends bytes to standard output, as they are.
    func write(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
    }

    /// Appends the bytes of a buffer to standard output, as they are.
    func write(_ bytes: UnsafeRawBufferPointer) {
        pending.append(bytes)
    }

    /// Appends a line that `build` writes straight into the pending output (a line that holds a secret, so that no
    /// string copy of it is made), and a newline.
    func print(_ build: (ZeroingBuffer) -> Void) {
        build(pending)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Writes a line to standard error, after any pending output.
    func printError(_ text: String) {
        printError { $0.append(contentsOf: text.utf8) }
    }

    /// Writes a line that `build` writes into a zeroed buffer to standard error, after any pending output.
    func printError(_ build: (ZeroingBuffer) -> Void) {
        flush()
        let line = ZeroingBuffer()
        build(line)
        line.append(UInt8(ascii: "\n"))
        if let failure = Self.writeAll(line.bytes, to: errors), errorFailure == nil {
            errorFailure = failure
        }
    }

    /// Writes pending output to standard output, then zeroes it. After a failure, output is dropped (zeroed).
    func flush() {
        guard !pending.isEmpty else { return }
        if outputFailure == nil, let failure = Self.writeAll(pending.bytes, to: output) {
            outputFailure = failure
        }
        pending.removeAll()
    }

    /// The process's result once everything is written: `result`, or when some output was lost, `errSecIO`
    /// (unless `result` is a failure already), with a message on standard error saying what was lost.
    func finish(_ result: Int32) -> Int32 {
        flush()
        guard hasFailed else { return result }
        if let failure = outputFailure, !isFailureReported {
            isFailureReported = true
            printError("security: cannot write standard output: \(String(cString: strerror(failure)))")
        }
        return result == 0 ? errSecIO : result
    }

    /// Writes every byte, retrying short writes and interrupted calls; returns the error that stopped it, if any.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// Writes every byte of a buffer; returns the error that stopped it, if any.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        DescriptorWriting.writeAll(bytes, to: descriptor)
    }
}
