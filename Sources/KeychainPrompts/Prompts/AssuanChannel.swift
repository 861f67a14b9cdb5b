import CSystem
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// One end of an Assuan conversation with a pinentry child: lines out, lines in, each within a deadline.
///
/// Received bytes may hold the secret (`D` lines), so they are read into guarded memory and every line is zeroed
/// once handled. Writes use `send(MSG_NOSIGNAL)` on a socket, so a child that went away is an error here, not a
/// SIGPIPE that kills the calling program.
final class AssuanChannel {
    /// Assuan's limit on a line, its LF included.
    static let maximumLineLength = 1000

    /// Why the conversation stopped.
    enum Failure: Error {
        /// The deadline passed with no complete answer.
        case timedOut
        /// The child closed the connection, sent something that is not Assuan, or the socket failed.
        case broken(String)
    }

    private let descriptor: Int32
    private let deadline: ContinuousClock.Instant
    private let buffer: SecureBytes
    private var held = 0

    /// A channel on the connected socket `descriptor` (which it does not close); every exchange must finish by
    /// `deadline`.
    init(descriptor: Int32, deadline: ContinuousClock.Instant) throws(EngineError) {
        self.descriptor = descriptor
        self.deadline = deadline
        buffer = try SecureBytes(count: Self.maximumLineLength * 2)
    }

    /// Sends `line` and its LF. The caller has escaped it.
    func send(_ line: String) throws(Failure) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        guard bytes.count <= Self.maximumLineLength else {
            throw .broken("an Assuan line would be \(bytes.count) bytes, over the protocol's limit")
        }
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT))
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                throw .broken("cannot write to pinentry: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Receives the next line and hands it to `body` without its LF; the line's bytes are zeroed afterwards.
    func receive<Result>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        while true {
            if let newline = lineEnd() {
                defer { consume(newline + 1) }
                guard newline < Self.maximumLineLength else {
                    throw .broken("pinentry sent a line longer than Assuan's \(Self.maximumLineLength) bytes")
                }
                return try buffer.withUnsafeBytes { bytes throws(Failure) in
                    try body(UnsafeRawBufferPointer(rebasing: bytes[..<newline]))
                }
            }
            guard held < Self.maximumLineLength else {
                consume(held)
                throw .broken("pinentry sent a line longer than Assuan's \(Self.maximumLineLength) bytes")
            }
            try wait(for: Int16(POLLIN))
            let count = buffer.withUnsafeMutableBytes { bytes in
                recv(descriptor, bytes.baseAddress.map { $0 + held }, bytes.count - held, 0)
            }
            if count > 0 {
                held += count
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else if count == 0 {
                throw .broken("pinentry closed the connection")
            } else {
                throw .broken("cannot read from pinentry: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The index of the first LF held.
    private func lineEnd() -> Int? {
        buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, held > 0,
                let found = memchr(base, Int32(UInt8(ascii: "\n")), held)
            else { return nil }
            return UnsafeRawPointer(found) - base
        }
    }

    /// Drops the first `count` bytes held, moving the rest to the front and zeroing what they leave behind.
    private func consume(_ count: Int) {
        buffer.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            memmove(base, base + count, held - count)
            ck_zero(base + held - count, count)
        }
        held -= count
    }

    /// Waits until the socket is ready for `events`, or throws when the deadline passes.
    private func wait(for events: Int16) throws(Failure) {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var watched = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&watched, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw .broken("cannot wait for pinentry: \(String(cString: strerror(errno)))")
            }
        }
    }
}
