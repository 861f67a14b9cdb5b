import CSystem
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// What the kernel says about a process that sent a message, read from `/proc/PID` with no more than the deployed
/// daemon's `CAP_SYS_PTRACE`: the executable it runs (path, device and inode of the file actually mapped, even if
/// renamed or deleted since), whether something traces it, and its groups.
///
/// Its auxiliary vector (`AT_SECURE`) is not among them: `/proc/PID/auxv` is mode 0400, owned by the process's user
/// (by root once it is not dumpable, as a setgid process is), and `CAP_SYS_PTRACE` overrides no file permission, so
/// the deployed daemon cannot open it. Its groups say as much for a setgid app: ``ProcessGroups/holdsOnlyBySetgidExec(_:)``.
struct ProcessFacts: Equatable {
    var executablePath: String
    var device: UInt64
    var inode: UInt64
    var isTraced: Bool
    var groups: ProcessGroups

    /// The facts of `pid`, or `nil` when the process is gone or `/proc` hides it (then it is no registered app).
    static func read(pid: Int32, procRoot: String = "/proc") -> ProcessFacts? {
        let directory = "\(procRoot)/\(pid)"
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/exe") else {
            return nil
        }
        var info = stat()
        guard stat("\(directory)/exe", &info) == 0 else { return nil }
        // Mode 0444 whatever the process: readable without any capability.
        guard let status = try? String(contentsOfFile: "\(directory)/status", encoding: .utf8) else { return nil }
        var fields: [Substring: [Substring]] = [:]
        for line in status.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon]] = line[line.index(after: colon)...].split(whereSeparator: \.isWhitespace)
        }
        guard let tracer = fields["TracerPid"]?.first.flatMap({ Int($0) }),
            let gids = fields["Gid"]?.compactMap({ UInt32($0) }), gids.count == 4,
            let supplementary = fields["Groups"]?.compactMap({ UInt32($0) })
        else { return nil }
        return ProcessFacts(
            executablePath: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), isTraced: tracer != 0,
            groups: ProcessGroups(real: gids[0], effective: gids[1], saved: gids[2], supplementary: supplementary))
    }

    /// The real user of `pid` (the `Uid:` line of its status), or `nil` when the process is gone or hidden.
    static func userID(pid: Int32, procRoot: String = "/proc") -> UInt32? {
        guard let status = try? String(contentsOfFile: "\(procRoot)/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Uid:") {
            return line.dropFirst(4).split(whereSeparator: \.isWhitespace).first.flatMap { UInt32($0) }
        }
        return nil
    }

    /// The device and inode of the file `pid` runs (what `/proc/PID/exe` maps), or `nil` when the process is gone
    /// or hidden.
    static func executableFile(pid: Int32, procRoot: String = "/proc") -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat("\(procRoot)/\(pid)/exe", &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}

/// A process's groups, from the `Gid:` and `Groups:` lines of `/proc/PID/status`.
struct ProcessGroups: Equatable {
    var real: UInt32
    var effective: UInt32
    var saved: UInt32
    var supplementary: [UInt32]

    /// Whether the process holds `group` only as the exec of a file setgid to it gives it — as its effective or
    /// saved group, not as its real group nor a supplementary one — which proves its program was started in
    /// secure-execution mode (`AT_SECURE`: the loader ignored `LD_PRELOAD` and the like, same-user ptrace is
    /// refused).
    ///
    /// The kernel starts a program with `AT_SECURE` whenever the effective group it starts with differs from the
    /// real group (`cap_bprm_creds_from_file`), and an exec sets the saved group to the effective one. So a program
    /// started without it has equal real, effective and saved groups, and keeps them equal (an unprivileged
    /// process only moves among the three): if it holds `group` at all, `group` is its real group. Without
    /// `CAP_SETGID` no other process gains a group it was not given, and registration makes sure no one is given an
    /// app's group but by its executable (no members, no other executable setgid to it).
    func holdsOnlyBySetgidExec(_ group: UInt32) -> Bool {
        real != group && !supplementary.contains(group) && (effective == group || saved == group)
    }
}
