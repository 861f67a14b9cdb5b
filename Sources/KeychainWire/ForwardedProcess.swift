import Foundation
import KeychainCore

/// A process a registered service speaks for (the Secret Service for its D-Bus callers): named by its pid and the
/// time it started, in clock ticks since boot (`/proc/PID/stat`'s 22nd field), which the kernel never gives two
/// processes of one pid within a boot, so a pid freed and reused meanwhile names no one. keychaind decides who the
/// process is itself, as for a direct client; the service only says which process asked, and with which groups it
/// reached the service.
///
/// A pid and start time name a process, not a program: a process keeps both across `exec`. So a program that
/// connects to the bus and then execs a registered app (a forked child keeping the connection) would be named
/// exactly as the app. `groups` closes that: the groups the process held when it connected (the bus daemon read
/// them from the kernel then, as `SO_PEERCRED`/`SO_PEERGROUPS`), among which a registered app's setgid group must be
/// — as a direct client's message must come with it.
package struct ForwardedProcess: Sendable, Equatable, Hashable {
    package var pid: Int32
    package var startTime: UInt64
    /// The effective and supplementary groups the process held when it reached the service (for the Secret
    /// Service: when it connected to the bus, as the bus reports them); empty when unknown, which no registered
    /// app's identity is given for.
    package var groups: [UInt32]

    package init(pid: Int32, startTime: UInt64, groups: [UInt32] = []) {
        self.pid = pid
        self.startTime = startTime
        self.groups = groups
    }

    /// The process that runs as `pid` now, or `nil` when there is none (or `/proc` hides it).
    package static func running(pid: Int32, groups: [UInt32] = [], procRoot: String = "/proc") -> ForwardedProcess? {
        guard pid > 0, let startTime = startTime(of: pid, procRoot: procRoot) else { return nil }
        return ForwardedProcess(pid: pid, startTime: startTime, groups: groups)
    }

    /// Whether `pid` is still the very process this names.
    package func isCurrent(procRoot: String = "/proc") -> Bool {
        Self.startTime(of: pid, procRoot: procRoot) == startTime
    }

    /// The start time in `/proc/PID/stat`: the fields after the command's closing parenthesis (the command may hold
    /// spaces and parentheses itself), of which the start time is the 20th.
    private static func startTime(of pid: Int32, procRoot: String) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "\(procRoot)/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}

extension ForwardedProcess {
    /// At most this many groups (Linux's `NGROUPS_MAX`, and the effective group).
    static let groupLimit = 65_537

    func write(to writer: inout WireWriter) {
        writer.uint32(UInt32(bitPattern: pid))
        writer.int64(Int64(bitPattern: startTime))
        writer.uint32(UInt32(groups.count))
        for group in groups { writer.uint32(group) }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let pid = Int32(bitPattern: try reader.uint32())
        guard pid > 0 else { throw reader.malformed("a forwarded process with pid \(pid)") }
        let startTime = UInt64(bitPattern: try reader.int64())
        let count = try reader.uint32()
        guard count <= Self.groupLimit else {
            throw reader.malformed("a forwarded process with \(count) groups (at most \(Self.groupLimit))")
        }
        var groups: [UInt32] = []
        for _ in 0..<count { groups.append(try reader.uint32()) }
        self.init(pid: pid, startTime: startTime, groups: groups)
    }
}
