import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tmpfs of a given size mounted on a directory of its own, unmounted (and its mount point removed) when
/// released. Mounting needs root (CAP_SYS_ADMIN); ``isPermitted`` says whether this machine allows it.
public final class TemporaryMount: Sendable {
    /// The directory that holds the mount point.
    public let directory: TemporaryDirectory
    /// The mount point.
    public var url: URL { directory.file("mount") }

    /// Mounts a tmpfs of `size` (`mount`'s notation: `64k`, `1m`), or returns `nil` when mounting is refused.
    public init?(size: String) throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("mount"), withIntermediateDirectories: false)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "none", url.path]) else {
            return nil
        }
    }

    deinit {
        _ = Self.run("/bin/umount", ["-l", url.path])
    }

    /// Makes the file system read-only, as a read-only mount or a damaged disk does.
    public func remountReadOnly() -> Bool {
        Self.run("/bin/mount", ["-o", "remount,ro", url.path])
    }

    /// Whether tmpfs mounts are permitted here (root with CAP_SYS_ADMIN).
    public static let isPermitted: Bool = geteuid() == 0 && ((try? TemporaryMount(size: "64k")) ?? nil) != nil

    /// Runs a command to the end (it is always reaped) and returns whether it succeeded.
    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

extension TemporaryMount {
    /// The names in the file system's root, sorted.
    public func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// Empties the file system, then fills all but `free` kilobytes of its `size` with one file, `fill`.
    public func fill(leaving free: Int, of size: Int) throws {
        for name in try entries() { try FileManager.default.removeItem(at: url.appendingPathComponent(name)) }
        // A page at a time, stopping at ENOSPC: a tmpfs's own overhead can make the last page not fit, and a
        // file system that is full is what `free` 0 asks for anyway.
        let path = url.appendingPathComponent("fill").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let page = [UInt8](repeating: 0, count: 4096)
        var remaining = max(0, size - free) * 1024
        while remaining > 0 {
            let written = page.withUnsafeBytes { write(descriptor, $0.baseAddress, min(remaining, page.count)) }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && errno == ENOSPC { return }
            guard written > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            remaining -= written
        }
    }
}
