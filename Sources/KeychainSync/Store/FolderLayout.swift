import CSystem
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where a ``FolderStore`` keeps each record, and how it writes one.
///
/// The record `a/b/c` is the file `a@/b@/c`: every segment but the last is a directory named after it with `@`
/// (a character no name holds) appended, so the record `a/b` (the file `a@/b`) and the record `a/b/c` can live side
/// by side. A last segment that starts with `.` is stored with `@` before it, so that no record is a dotfile. Every
/// other entry (dotfiles such as Syncthing's `.stversions` and `.syncthing.*.tmp` or this store's temporary files,
/// conflict copies such as `*.sync-conflict-*` whose names hold characters no record name does) is not a record.
enum FolderLayout {
    /// The directory that holds the records whose names start with `segments`, each followed by `/`.
    static func directory(_ root: String, for segments: some Sequence<String>) -> String {
        segments.reduce(root) { $0 + "/" + $1 + "@" }
    }

    /// The file of the record `name` (a valid name).
    static func file(_ root: String, for name: String) -> String {
        let segments = name.split(separator: "/").map(String.init)
        return directory(root, for: segments.dropLast()) + "/" + entryName(forRecord: segments[segments.count - 1])
    }

    /// The directory entry of a record whose last segment is `segment`.
    static func entryName(forRecord segment: String) -> String {
        segment.hasPrefix(".") ? "@" + segment : segment
    }

    /// The last segment of the record stored as the regular file `entry`, or `nil` when it is no record's.
    static func recordSegment(ofFile entry: String) -> String? {
        let segment = entry.hasPrefix("@.") ? String(entry.dropFirst()) : entry
        guard segment == entry ? !entry.hasPrefix(".") : true, SyncStoreName.isSegment(segment.utf8) else {
            return nil
        }
        return segment
    }

    /// The segment of the directory `entry`, or `nil` when it holds no records.
    static func segment(ofDirectory entry: String) -> String? {
        guard entry.hasSuffix("@") else { return nil }
        let segment = entry.dropLast()
        return SyncStoreName.isSegment(segment.utf8) ? String(segment) : nil
    }

    /// The directory holding `path`.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether anything is at `path` (not following a symbolic link).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Appends the names of the records under `directory` (whose names start with `namePrefix`) to `names`; a
    /// missing directory holds none.
    static func collect(in directory: String, namePrefix: String, into names: inout [String]) throws(SyncStoreError) {
        guard let stream = opendir(directory) else {
            if errno == ENOENT || errno == ENOTDIR { return }
            throw .systemCall("list the folder", path: directory, errno: errno)
        }
        var subdirectories: [String] = []
        defer { closedir(stream) }
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .systemCall("list the folder", path: directory, errno: errno) }
                break
            }
            let name = name(of: entry)
            var type = entry.pointee.d_type
            if type == UInt8(DT_UNKNOWN) {
                // Some file systems (network ones among them) leave the type to a stat.
                var status = stat()
                guard lstat(directory + "/" + name, &status) == 0 else { continue }
                let format = status.st_mode & S_IFMT
                type = format == S_IFDIR ? UInt8(DT_DIR) : format == S_IFREG ? UInt8(DT_REG) : 0
            }
            if type == UInt8(DT_DIR), let segment = segment(ofDirectory: name) {
                subdirectories.append(segment)
            } else if type == UInt8(DT_REG), let segment = recordSegment(ofFile: name) {
                names.append(namePrefix + segment)
            }
        }
        for segment in subdirectories {
            try collect(in: directory + "/" + segment + "@", namePrefix: namePrefix + segment + "/", into: &names)
        }
    }

    /// The name of a directory entry `readdir` returned.
    static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                String(cString: $0)
            }
        }
    }

    /// Creates the directories (0700) for records under `segments`, each flushed into its parent.
    static func createDirectories(_ root: String, for segments: [String]) throws(SyncStoreError) {
        var directory = root
        for segment in segments {
            let parent = directory
            directory += "/" + segment + "@"
            if mkdir(directory, 0o700) == 0 {
                try FileDescriptor<SyncStoreError>.synchronizeDirectory(parent)
            } else if errno != EEXIST {
                throw .systemCall("create the folder", path: directory, errno: errno)
            }
        }
    }

    /// Writes `bytes` as the new file `path`, complete and flushed before it gets its name; returns `false`, writing
    /// nothing, when something by that name is already there. With `unnamedFiles` the file has no name at all until
    /// then (`O_TMPFILE`); otherwise, or where the file system has no unnamed files, it is a hidden temporary file
    /// beside it until renamed without replacing.
    static func writeNew(_ path: String, _ bytes: [UInt8], unnamedFiles: Bool) throws(SyncStoreError) -> Bool {
        let directory = parent(of: path)
        if unnamedFiles, let file = FileDescriptor<SyncStoreError>.createUnnamed(in: directory, for: path) {
            try file.write(bytes)
            try file.synchronize()
            do throws(SyncStoreError) {
                try file.link(to: path)
            } catch {
                // linkat fails with EEXIST when the name is taken: someone else's record stays as it is.
                if exists(path) { return false }
                throw error
            }
            return true
        }
        let temporary = directory + "/.keychain-sync-" + UUID().uuidString.lowercased() + ".tmp"
        let file = try FileDescriptor<SyncStoreError>.createExclusively(temporary)
        defer { unlink(temporary) }
        try file.write(bytes)
        try file.synchronize()
        try file.close()
        switch renameWithoutReplacing(temporary, path) {
        case 0: return true
        case EEXIST: return false
        case EINVAL, ENOSYS, EOPNOTSUPP:
            // A file system without RENAME_NOREPLACE (NFS among them): a hard link fails the same way on a taken name.
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { return false }
                throw .systemCall("name the record", path: path, errno: errno)
            }
            return true
        case let failure: throw .systemCall("name the record", path: path, errno: failure)
        }
    }

    /// `renameat2(RENAME_NOREPLACE)` (through CSystem: Glibc's module hides it behind `_GNU_SOURCE`): 0, or the
    /// errno (`ENOSYS` or `EINVAL` where the kernel or the file system cannot).
    private static func renameWithoutReplacing(_ source: String, _ destination: String) -> Int32 {
        ck_rename_noreplace(source, destination) == 0 ? 0 : errno
    }
}
