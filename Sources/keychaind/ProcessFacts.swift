import CSystem
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// What the kernel says about a process that sent a message, read from `/proc/PID`: the executable it runs
/// (path, device and inode of the file actually mapped, even if renamed or deleted since), whether something
/// traces it, and whether the loader ran it in secure-execution mode (`AT_SECURE`: set-user/group-ID or file
/// capabilities, so `LD_PRELOAD` was ignored and same-user ptrace is refused).
struct ProcessFacts: Equatable {
    var executablePath: String
    var device: UInt64
    var inode: UInt64
    var isTraced: Bool
    var isSecureExecution: Bool

    /// The facts of `pid`, or `nil` when the process is gone or `/proc` hides it (then it is no registered app).
    static func read(pid: Int32, procRoot: String = "/proc") -> ProcessFacts? {
        let directory = "\(procRoot)/\(pid)"
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/exe") else {
            return nil
        }
        var info = stat()
        guard stat("\(directory)/exe", &info) == 0 else { return nil }
        guard let status = try? String(contentsOfFile: "\(directory)/status", encoding: .utf8) else { return nil }
        let tracer = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
            .flatMap { Int($0.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces)) }
        guard let tracer, let secure = secureExecution(auxv: "\(directory)/auxv") else { return nil }
        return ProcessFacts(
            executablePath: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), isTraced: tracer != 0,
            isSecureExecution: secure)
    }

    /// The device and inode of the file `pid` runs (what `/proc/PID/exe` maps), or `nil` when the process is gone
    /// or hidden.
    static func executableFile(pid: Int32, procRoot: String = "/proc") -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat("\(procRoot)/\(pid)/exe", &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// `AT_SECURE` (type 23) from the process's auxiliary vector: pairs of machine words, type then value.
    private static func secureExecution(auxv path: String) -> Bool? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let word = MemoryLayout<UInt>.size
        var offset = 0
        while offset + 2 * word <= data.count {
            let type = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt.self) }
            let value = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + word, as: UInt.self) }
            if type == 23 { return value != 0 }
            if type == 0 { break }
            offset += 2 * word
        }
        return false
    }
}
