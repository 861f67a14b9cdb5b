import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a test can learn about a running child from `/proc`.
public enum ProcessInspection {
    /// The lines of `/proc/<pid>/<file>`.
    public static func lines(_ pid: pid_t, _ file: String) throws -> [String] {
        try String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8).components(separatedBy: "\n")
    }

    /// The owner of `/proc/<pid>/status`: the process's effective uid while it is dumpable, root once it is not.
    public static func procOwner(_ pid: pid_t) throws -> uid_t {
        var status = stat()
        guard stat("/proc/\(pid)/status", &status) == 0 else {
            throw SpawnError(message: "stat /proc/\(pid): \(errno)")
        }
        return status.st_uid
    }

    /// The effective uid on the `Uid:` line of `/proc/<pid>/status`.
    public static func effectiveUID(_ pid: pid_t) throws -> uid_t? {
        let line = try lines(pid, "status").first { $0.hasPrefix("Uid:") }
        let fields = line?.split(whereSeparator: \.isWhitespace) ?? []
        return fields.count > 2 ? uid_t(fields[2]) : nil
    }

    /// Whether `needle` occurs anywhere in the child's writable memory (heap, stacks, anonymous mappings),
    /// read through `/proc/<pid>/mem`, which needs the right to trace it (root may, even when it is not dumpable).
    public static func writableMemory(of pid: pid_t, contains needle: [UInt8]) throws -> Bool {
        let memory = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard memory >= 0 else {
            throw SpawnError(message: "open /proc/\(pid)/mem: \(String(cString: strerror(errno)))")
        }
        defer { close(memory) }
        let wanted = Data(needle)
        for line in try lines(pid, "maps") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            if fields.count >= 6, fields[5].hasPrefix("[v") { continue }  // [vvar], [vsyscall]: not ours
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            var region = Data(count: Int(bounds[1] - bounds[0]))
            let count = region.withUnsafeMutableBytes { pread(memory, $0.baseAddress, $0.count, off_t(bounds[0])) }
            guard count > 0 else { continue }
            if region.prefix(count).range(of: wanted) != nil { return true }
        }
        return false
    }
}
