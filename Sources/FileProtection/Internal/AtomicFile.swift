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
final class AtomicFile {
    /// Where the file goes.
    let destination: URL
    /// The file being written.
    let file: Descriptor
    /// Whether the file is being written without a name (`O_TMPFILE`).
    let isUnnamed: Bool
    private let directory: String
    /// The file's temporary name, once it has one (from the start when it is not unnamed).
    private var temporaryPath: String?
    private var isCommitted = false
    private var isDiscarded = false

    /// Creates the file beside `destination`: unnamed when the file system allows and `allowingUnnamed` (tests
    /// turn it off to exercise the named way), else under a temporary name.
    init(destination: URL, allowingUnnamed: Bool = true) throws(FileProtectionError) {
        self.destination = destination
        directory = destination.deletingLastPathComponent().path
        let name = destination.lastPathComponent
        guard !name.isEmpty, name != "/" else {
            throw FileProtectionError(.param, "\(destination.path): is not a file path")
        }
        if allowingUnnamed, let unnamed = Descriptor.createUnnamed(in: directory, for: destination.path) {
            file = unnamed
            isUnnamed = true
            return
        }
        let path = Self.temporaryPath(for: name, in: directory)
        do {
            file = try Descriptor.createExclusively(path)
        } catch {
            throw FileProtectionError(
                status: error.status,
                message: "\(destination.path): cannot write it (\(error.message))")
        }
        temporaryPath = path
        isUnnamed = false
    }

    deinit {
        discard()
    }

    /// Deletes the file now, unless it was committed (an unnamed file vanishes when its descriptor is closed).
    func discard() {
        guard !isCommitted && !isDiscarded else { return }
        if let temporaryPath { unlink(temporaryPath) }
        isDiscarded = true
    }

    /// Moves the complete file into place, durably. `overwriting: false` fails with
    /// ``FileProtectionError/duplicateItem`` when the destination exists (and leaves it alone).
    func commit(overwriting: Bool = true) throws(FileProtectionError) {
        guard !isDiscarded else { throw FileProtectionError(.param, "\(destination.path): the write was abandoned") }
        try file.synchronize()
        let temporary = try nameUnnamedFile()
        try file.close()
        let path = destination.path
        if overwriting {
            guard rename(temporary, path) == 0 else { throw .system("replace it", path: path, errno: errno) }
        } else {
            // link(2) fails when the destination exists, so no other writer's file is ever replaced.
            guard link(temporary, path) == 0 else { throw .system("create it", path: path, errno: errno) }
            unlink(temporary)
        }
        isCommitted = true
        try Descriptor.synchronizeDirectory(directory)
    }

    /// The file's temporary name: the one it has, or, for an unnamed file, a free one it is linked to now.
    private func nameUnnamedFile() throws(FileProtectionError) -> String {
        if let temporaryPath { return temporaryPath }
        var attempts = 0
        while true {
            let path = Self.temporaryPath(for: destination.lastPathComponent, in: directory)
            do throws(FileProtectionError) {
                try file.link(to: path)
                temporaryPath = path
                return path
            } catch {
                // Another file has that random name: pick another (a few times, then it is not chance).
                attempts += 1
                guard error == .duplicateItem, attempts < 8 else { throw error }
            }
        }
    }

    /// `.<name>.<random>.tmp` in `directory`.
    private static func temporaryPath(for name: String, in directory: String) -> String {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return (directory as NSString).appendingPathComponent(".\(name).\(suffix).tmp")
    }
}
