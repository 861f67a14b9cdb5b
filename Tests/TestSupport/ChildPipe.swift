import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One pipe's two ends, closed when released.
public final class ChildPipe: @unchecked Sendable {
    /// The reading end (`-1` once closed).
    public private(set) var reading: Int32
    /// The writing end (`-1` once closed).
    public private(set) var writing: Int32

    /// A new pipe, both ends close-on-exec.
    public init() throws {
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

    /// Closes the reading end.
    public func closeReading() {
        if reading >= 0 { close(reading) }
        reading = -1
    }

    /// Closes the writing end.
    public func closeWriting() {
        if writing >= 0 { close(writing) }
        writing = -1
    }

    /// Writes everything, then closes the writing end (the reader sees the end of input). A child that exits
    /// before reading it all ends the write (`EPIPE`; SIGPIPE is ignored in the test process, never in a child).
    public func writeAll(_ bytes: [UInt8]) {
        signal(SIGPIPE, SIG_IGN)
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
    public func readAll() -> [UInt8] {
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
public final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []

    /// Starts reading `pipe`.
    public init(_ pipe: ChildPipe) {
        Thread { [self] in
            bytes = pipe.readAll()
            done.signal()
        }.start()
    }

    /// The bytes, once the pipe has ended (as often as asked).
    public func wait() -> [UInt8] {
        done.wait()
        done.signal()
        return bytes
    }
}
