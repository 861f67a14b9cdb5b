import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// A ``SyncStore`` in a folder that another tool (Syncthing, a network file system, a cloud drive) keeps in step
/// between machines: `file:///path`.
///
/// Each record is a file of its own, never rewritten: a name's segments are subdirectories (`FolderLayout`), and
/// ``putIfAbsent(_:_:)`` writes a complete, flushed file that no path leads to and only then gives it its name with
/// a call that fails when the name exists (`linkat`, or `renameat2` with `RENAME_NOREPLACE`), so another process or
/// machine sees all of a record or none of it, and a record is never overwritten. Directories are 0700, records
/// 0600. ``list(prefix:)`` ignores what file-sync tools leave beside the records (Syncthing's `.stversions` and
/// `.syncthing.*.tmp`, `*.sync-conflict-*` copies, dotfiles, this store's own temporary files).
///
/// Safe from any number of threads and processes at once.
public final class FolderStore: SyncStore {
    /// The folder's absolute path.
    public let path: String
    /// How often a watch lists the folder to catch what inotify does not report (network file systems), in seconds.
    public let pollInterval: Double
    private let usesInotify: Bool
    let usesUnnamedFiles: Bool

    /// Opens the store in the folder at `path` (absolute), creating the folder (0700) when its parent exists.
    /// - Parameter path: the folder's absolute path.
    /// - Parameter pollInterval: how often a watch also lists the folder (inotify sees no other machine's writes on
    ///   a network file system).
    public convenience init(path: String, pollInterval: Double = 2) throws(SyncStoreError) {
        try self.init(path: path, pollInterval: pollInterval, usesInotify: true, usesUnnamedFiles: true)
    }

    /// Opens the store; `usesInotify: false` makes watches rely on the poll alone, and `usesUnnamedFiles: false`
    /// writes through hidden temporary files, as on a network file system that has neither.
    init(path: String, pollInterval: Double, usesInotify: Bool, usesUnnamedFiles: Bool) throws(SyncStoreError) {
        guard path.hasPrefix("/") else {
            throw SyncStoreError(.invalidURL, "the folder store's path \(path) is not absolute")
        }
        guard pollInterval > 0, pollInterval.isFinite else {
            throw SyncStoreError(.invalidURL, "the folder store's poll interval \(pollInterval) is not positive")
        }
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        self.pollInterval = pollInterval
        self.usesInotify = usesInotify
        self.usesUnnamedFiles = usesUnnamedFiles
        if mkdir(self.path, 0o700) == 0 {
            try FileDescriptor<SyncStoreError>.synchronizeDirectory(FolderLayout.parent(of: self.path))
        } else if errno != EEXIST {
            throw .systemCall("create the folder store's folder", path: self.path, errno: errno)
        }
        try checkFolder()
    }

    /// The records under `prefix`, in ascending byte order; what is not a record (see the type) is left out.
    public func list(prefix: String) throws(SyncStoreError) -> [String] {
        try SyncStoreName.validatePrefix(prefix)
        try checkFolder()
        // Descend straight to the deepest directory the prefix names in full, then walk what is under it.
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let directory = FolderLayout.directory(path, for: segments.dropLast())
        let namePrefix = segments.dropLast().map { $0 + "/" }.joined()
        var names: [String] = []
        try FolderLayout.collect(in: directory, namePrefix: namePrefix, into: &names)
        return names.filter { $0.hasPrefix(prefix) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The record's bytes, or `nil` when there is none (`.unavailable` when the folder itself is gone).
    public func get(_ name: String) throws(SyncStoreError) -> [UInt8]? {
        try SyncStoreName.validate(name)
        let file = FolderLayout.file(path, for: name)
        let descriptor: FileDescriptor<SyncStoreError>
        do throws(SyncStoreError) {
            guard let opened = try FileDescriptor<SyncStoreError>.openIfExists(file, O_RDONLY | O_NOFOLLOW) else {
                try checkFolder()
                return nil
            }
            descriptor = opened
        } catch {
            // Something other than a directory on the way (ENOTDIR) means no such record either.
            guard !FolderLayout.exists(file) else { throw error }
            try checkFolder()
            return nil
        }
        guard try descriptor.status().st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(file) }
        return try descriptor.readBytes(count: try descriptor.size())
    }

    /// Writes the record unless its name is taken: complete and flushed (the file, then its directory) before
    /// it gets its name, with a call that fails rather than replace what is there.
    public func putIfAbsent(_ name: String, _ bytes: [UInt8]) throws(SyncStoreError) -> Bool {
        try SyncStoreName.validate(name)
        try checkFolder()
        let file = FolderLayout.file(path, for: name)
        let directory = FolderLayout.parent(of: file)
        try FolderLayout.createDirectories(path, for: name.split(separator: "/").dropLast().map(String.init))
        if FolderLayout.exists(file) { return false }
        let written = try FolderLayout.writeNew(file, bytes, unnamedFiles: usesUnnamedFiles)
        try FileDescriptor<SyncStoreError>.synchronizeDirectory(directory)
        return written
    }

    /// Removes the record's file and flushes its directory; a missing record is not an error.
    public func delete(_ name: String) throws(SyncStoreError) {
        try SyncStoreName.validate(name)
        let file = FolderLayout.file(path, for: name)
        guard unlink(file) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else {
                throw .systemCall("remove the record", path: file, errno: errno)
            }
            try checkFolder()
            return
        }
        try FileDescriptor<SyncStoreError>.synchronizeDirectory(FolderLayout.parent(of: file))
    }

    /// Watches the folder (see `FolderWatcher`): inotify, and a listing every ``pollInterval`` seconds.
    public func watch(_ onChange: @escaping @Sendable () -> Void) throws(SyncStoreError) -> any SyncStoreWatch {
        try checkFolder()
        return try FolderWatcher.start(self, usesInotify: usesInotify, onChange: onChange)
    }

    /// Throws `.unavailable` unless the folder is there (a network file system may be unmounted, a drive gone).
    func checkFolder() throws(SyncStoreError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw SyncStoreError(
                .unavailable, "the folder store's folder \(path) is not there: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw SyncStoreError(.unavailable, "the folder store's folder \(path) is not a directory")
        }
    }
}
