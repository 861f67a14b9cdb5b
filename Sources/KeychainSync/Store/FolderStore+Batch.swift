import CSystem
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

extension FolderStore {
    /// Writes the records as ``putIfAbsent(_:_:)`` does each, with one flush for all of them: every record is
    /// written to an unnamed file, the file system is flushed once (`syncfs`), and only then does each file get its
    /// name, in order, with a call that fails when the name is taken; each directory named into is flushed once at
    /// the end. A reader therefore still sees all of a record or none of it, and a record is never overwritten.
    /// Without unnamed files (a network file system), one ``putIfAbsent(_:_:)`` per record.
    public func putAllIfAbsent(_ records: [(name: String, bytes: [UInt8])]) throws(SyncStoreError) -> Int {
        for record in records { try SyncStoreName.validate(record.name) }
        try checkFolder()
        // Chunks bounded, so that the open descriptors stay well below the process's limit.
        return try putInChunks(records, size: 256) { (chunk) throws(SyncStoreError) in try putChunk(chunk) }
    }

    /// Writes one chunk of ``putAllIfAbsent(_:)`` and returns how many of its records, from the first, were written.
    private func putChunk(_ chunk: ArraySlice<(name: String, bytes: [UInt8])>) throws(SyncStoreError) -> Int {
        var files: [(path: String, descriptor: FileDescriptor<SyncStoreError>)] = []
        var directories: [String] = []
        for record in chunk {
            let file = FolderLayout.file(path, for: record.name)
            let directory = FolderLayout.parent(of: file)
            if directories.last != directory, !directories.contains(directory) {
                try FolderLayout.createDirectories(
                    path, for: record.name.split(separator: "/").dropLast().map(String.init))
                directories.append(directory)
            }
            // A taken name ends the chunk here: what follows it is not written.
            if FolderLayout.exists(file) { break }
            guard usesUnnamedFiles,
                let descriptor = FileDescriptor<SyncStoreError>.createUnnamed(in: directory, for: file)
            else {
                // No unnamed files here: the files made so far vanish with their descriptors, and each record is
                // written alone.
                return try putEachIfAbsent(chunk)
            }
            try descriptor.write(record.bytes)
            files.append((file, descriptor))
        }
        guard let first = directories.first else { return 0 }
        if !files.isEmpty { try Self.flushFileSystem(holding: first) }
        var written = 0
        for (file, descriptor) in files {
            do throws(SyncStoreError) {
                try descriptor.link(to: file)
            } catch {
                // linkat fails with EEXIST when the name was taken meanwhile: that record and the rest are not written.
                if FolderLayout.exists(file) { break }
                throw error
            }
            written += 1
        }
        for directory in directories { try FileDescriptor<SyncStoreError>.synchronizeDirectory(directory) }
        return written
    }

    /// Flushes the file system that holds `directory` (`syncfs`): the contents of every file written so far.
    private static func flushFileSystem(holding directory: String) throws(SyncStoreError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .systemCall("open the folder", path: directory, errno: errno) }
        defer { close(descriptor) }
        guard ck_syncfs(descriptor) == 0 else {
            throw .systemCall("flush the folder's file system", path: directory, errno: errno)
        }
    }
}
