import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileDescriptor {
    /// Replaces the file at `path` with `bytes`, durably and all at once: written to a new file beside it (0600,
    /// created exclusively), flushed, renamed over `path`, then the directory flushed, so after a crash `path` holds
    /// either the old contents or all of the new. A failure leaves `path` as it was and no temporary file behind.
    package static func replaceContents(of path: String, with bytes: [UInt8]) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let temporary = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(
            ".\(name).\(suffix).tmp")
        let file = try createExclusively(temporary)
        do throws(Failure) {
            try file.write(bytes)
            try file.synchronize()
            try file.close()
            guard rename(temporary, path) == 0 else { throw .systemCall("replace it", path: path, errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        try synchronizeDirectory(directory.isEmpty ? "." : directory)
    }
}
