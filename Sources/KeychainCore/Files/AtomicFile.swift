import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written beside its destination and moved into place only once complete: until ``commit(overwriting:)``
/// succeeds the destination is untouched, and a file that is never committed (an error, a lock, a dropped handle,
/// a killed process) leaves nothing behind. Mode 0600.
///
/// Where the file system allows, the file has no name while it is written (`O_TMPFILE`): a process killed half-way
/// leaves no partial file, plaintext or ciphertext, on disk. Committing flushes it, links it under a temporary name
/// in the same directory (the kernel links an unnamed file only to a free name), then moves it into place as a
/// named temporary file would be; the only window with a named temporary file holds the complete file. Elsewhere
/// it is written under a temporary name from the start, deleted when the write is abandoned.
///
/// Committing flushes the file, renames it over the destination (or links it, when overwriting is not allowed),
/// then flushes the directory, so after a crash the destination is either the old file or the whole new one.
///
/// The one atomic writer of the package: protected files, the daemon's app registry and every small file replaced
/// whole (``FileDescriptor/replaceContents(of:with:)``). Every failure is `Failure` and names the file.
package final class AtomicFile<Failure: FileDescriptorFailure> {
    /// Where the file goes.
    package let destination: URL
    /// The file being written.
    package let file: FileDescriptor<Failure>
    /// Whether the file is being written without a name (`O_TMPFILE`).
    package let isUnnamed: Bool
    private let directory: String
    /// The file's temporary name, once it has one (from the start when it is not unnamed).
    private var temporaryPath: String?
    private var isCommitted = false
    private var isDiscarded = false

    /// Creates the file beside `destination`: unnamed when the file system allows and `allowingUnnamed` (tests
    /// turn it off to exercise the named way), else under a temporary name.
    package init(destination: URL, allowingUnnamed: Bool = true) throws(Failure) {
        self.destination = destination
        directory = destination.deletingLastPathComponent().path
        let name = destination.lastPathComponent
        guard !name.isEmpty, name != "/" else { throw .systemCall("write it", path: destination.path, errno: EISDIR) }
        if allowingUnnamed,
            let unnamed = FileDescriptor<Failure>.createUnnamed(in: directory, for: destination.path)
        {
            file = unnamed
            isUnnamed = true
            return
        }
        let path = Self.temporaryPath(for: name, in: directory)
        file = try FileDescriptor<Failure>.createExclusively(path)
        temporaryPath = path
        isUnnamed = false
    }

    deinit {
        discard()
    }

    /// Deletes the file now, unless it was committed (an unnamed file vanishes when its descriptor is closed).
    package func discard() {
        guard !isCommitted && !isDiscarded else { return }
        if let temporaryPath { unlink(temporaryPath) }
        isDiscarded = true
    }

    /// Moves the complete file into place, durably. `overwriting: false` fails with
    /// the `EEXIST` failure when the destination exists (and leaves it alone).
    package func commit(overwriting: Bool = true) throws(Failure) {
        guard !isDiscarded else {
            throw .systemCall("commit it (the write was abandoned)", path: destination.path, errno: ECANCELED)
        }
        try file.synchronize()
        let temporary = try nameUnnamedFile()
        try file.close()
        let path = destination.path
        if overwriting {
            guard rename(temporary, path) == 0 else { throw .systemCall("replace it", path: path, errno: errno) }
        } else {
            // link(2) fails when the destination exists, so no other writer's file is ever replaced.
            guard link(temporary, path) == 0 else { throw .systemCall("create it", path: path, errno: errno) }
            unlink(temporary)
        }
        isCommitted = true
        try FileDescriptor<Failure>.synchronizeDirectory(directory)
    }

    /// The file's temporary name: the one it has, or, for an unnamed file, a free one it is linked to now.
    private func nameUnnamedFile() throws(Failure) -> String {
        if let temporaryPath { return temporaryPath }
        // Another file with the random name: pick another (a few times, then it is not chance).
        for _ in 0..<8 {
            let path = Self.temporaryPath(for: destination.lastPathComponent, in: directory)
            if try file.linkIfFree(to: path) {
                temporaryPath = path
                return path
            }
        }
        throw .systemCall("name it", path: destination.path, errno: EEXIST)
    }

    /// `.<name>.<random>.tmp` in `directory`.
    private static func temporaryPath(for name: String, in directory: String) -> String {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return (directory as NSString).appendingPathComponent(".\(name).\(suffix).tmp")
    }
}
