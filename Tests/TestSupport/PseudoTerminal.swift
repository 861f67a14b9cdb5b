import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pseudo-terminal for one test: the test holds the master side, types on it and reads what the program on
/// the slave side wrote; ``SpawnedProcess`` can start a program whose controlling terminal is the slave.
public final class PseudoTerminal {
    /// The master side's descriptor.
    public let master: Int32
    /// The slave side's device path (`/dev/pts/N`).
    public let slavePath: String
    /// Everything the program wrote to the terminal so far (what ``read(until:timeout:)`` took in).
    public private(set) var transcript: [UInt8] = []

    /// Why a pseudo-terminal could not be made or used.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// A new pseudo-terminal, in its default settings (echo, line editing and signal keys on).
    ///
    /// Made as `posix_openpt`, `grantpt`, `unlockpt` and `ptsname` do on Linux (Swift's Glibc module hides them):
    /// `/dev/ptmx` opened, the slave unlocked (`TIOCSPTLCK`) and its number asked (`TIOCGPTN`); devpts gives the
    /// slave to its owner already, so `grantpt` has nothing to do.
    public init() throws {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure(description: "/dev/ptmx: \(String(cString: strerror(errno)))") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.unlockRequest, &unlock) == 0, ioctl(master, Self.numberRequest, &number) == 0 else {
            let reason = String(cString: strerror(errno))
            close(master)
            throw Failure(description: "unlocking the pseudo-terminal: \(reason)")
        }
        self.master = master
        slavePath = "/dev/pts/\(number)"
    }

    /// `TIOCSPTLCK` and `TIOCGPTN` (`_IOW('T', 0x31, int)`, `_IOR('T', 0x30, unsigned int)`).
    private static let unlockRequest: UInt = 0x4004_5431
    private static let numberRequest: UInt = 0x8004_5430

    deinit {
        close(master)
    }

    /// Types `text` on the keyboard.
    public func type(_ text: String) throws {
        try type(Array(text.utf8))
    }

    /// Types `bytes` on the keyboard.
    public func type(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.write(master, $0.baseAddress.map { $0 + offset }, $0.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                throw Failure(description: "writing the terminal: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Reads what the program writes until the transcript contains `text` (returns `true`), the slave side is
    /// closed by everyone, or `timeout` passes (returns `false`).
    @discardableResult
    public func read(until text: String, timeout: Duration = .seconds(30)) -> Bool {
        let wanted = Array(text.utf8)
        let deadline = ContinuousClock.now + timeout
        while !contains(wanted) {
            guard readMore(before: deadline) else { return false }
        }
        return true
    }

    /// Reads what the program writes until everyone closed the slave side, or `timeout` passes.
    public func readToEnd(timeout: Duration = .seconds(30)) {
        let deadline = ContinuousClock.now + timeout
        while readMore(before: deadline) {}
    }

    /// The transcript as text.
    public var transcriptText: String { String(decoding: transcript, as: UTF8.self) }

    /// The terminal's current local modes (`c_lflag`: `ECHO`, `ICANON`, `ISIG`…), which the master side shares
    /// with the slave side.
    public func localModes() throws -> UInt32 {
        var settings = termios()
        guard tcgetattr(master, &settings) == 0 else {
            throw Failure(description: "tcgetattr: \(String(cString: strerror(errno)))")
        }
        return UInt32(settings.c_lflag)
    }

    private func contains(_ wanted: [UInt8]) -> Bool {
        guard !wanted.isEmpty else { return true }
        guard transcript.count >= wanted.count else { return false }
        return (0...(transcript.count - wanted.count)).contains { start in
            transcript[start..<start + wanted.count].elementsEqual(wanted)
        }
    }

    /// Reads once what is there; `false` at the end (EIO once no slave is open) or at the deadline.
    private func readMore(before deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            var watched = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 10)
            let ready = poll(&watched, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return false }
            transcript += chunk[..<count]
            return true
        }
    }
}
