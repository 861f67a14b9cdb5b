import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written under a temporary name beside its destination and moved into place only once complete: until
/// ``commit(overwriting:)`` succeeds the destination is untouched, and a file that is never committed (an error,
/// a lock, a dropped handle) is deleted. Mode 0600.
///
/// Committing flushes the file, renames it over the destination (or links it, when overwriting is not allowed),
/// then flushes the directory, so after a crash the destination is either the old file or the whole new one.
final class AtomicFile {
    /// Where the file goes.
    let destination: URL
    /// The temporary file being written.
    let file: FileDescriptor
    private let temporaryPath: String
    private var isCommitted = false
    private var isDiscarded = false

    /// Creates the temporary file beside `destination`.
    init(destination: URL) throws(FileProtectionError) {
        self.destination = destination
        let directory = destination.deletingLastPathComponent().path
        let name = destination.lastPathComponent
        guard !name.isEmpty, name != "/" else {
            throw FileProtectionError(.param, "\(destination.path): is not a file path")
        }
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        temporaryPath = (directory as NSString).appendingPathComponent(".\(name).\(suffix).tmp")
        do {
            file = try FileDescriptor.createExclusively(temporaryPath)
        } catch {
            throw FileProtectionError(
                status: error.status,
                message: "\(destination.path): cannot write it (\(error.message))")
        }
    }

    deinit {
        discard()
    }

    /// Deletes the temporary file now, unless it was committed.
    func discard() {
        guard !isCommitted && !isDiscarded else { return }
        unlink(temporaryPath)
        isDiscarded = true
    }

    /// Moves the complete file into place, durably. `overwriting: false` fails with
    /// ``FileProtectionError/duplicateItem`` when the destination exists (and leaves it alone).
    func commit(overwriting: Bool = true) throws(FileProtectionError) {
        guard !isDiscarded else { throw FileProtectionError(.param, "\(destination.path): the write was abandoned") }
        try file.synchronize()
        try file.close()
        let path = destination.path
        if overwriting {
            guard rename(temporaryPath, path) == 0 else { throw .system("replace it", path: path, errno: errno) }
        } else {
            // link(2) fails when the destination exists, so no other writer's file is ever replaced.
            guard link(temporaryPath, path) == 0 else { throw .system("create it", path: path, errno: errno) }
            unlink(temporaryPath)
        }
        isCommitted = true
        try FileDescriptor.synchronizeDirectory(destination.deletingLastPathComponent().path)
    }
}
