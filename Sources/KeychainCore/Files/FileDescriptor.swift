import CSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a failed call on a ``FileDescriptor`` throws: each layer's own error (the engine's, `FileProtection`'s), so
/// one descriptor type serves them all and every failure still names the file in that layer's terms.
package protocol FileDescriptorFailure: Error {
    /// The error for a system call that failed on `path` with `errno`; `what` says what it was doing ("open it").
    static func systemCall(_ what: String, path: String, errno: Int32) -> Self
    /// The error for a path that leads to something other than a regular file.
    static func notRegularFile(_ path: String) -> Self
}

/// An open file, read and written with plain system calls (retried on `EINTR`, short transfers completed), closed
/// when released: the one layer over file descriptors for the device key, the keychain directory, the high-water
/// mark and protected files. Every failure is `Failure` and names the file.
package final class FileDescriptor<Failure: FileDescriptorFailure> {
    /// The file's path, for messages.
    package let path: String
    private var descriptor: Int32

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Opens `path` with `flags` (`O_CLOEXEC` is added) and, when they create it, `mode`.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Failure) -> FileDescriptor {
        let descriptor = systemOpen(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .systemCall("open it", path: path, errno: errno) }
        return FileDescriptor(descriptor: descriptor, path: path)
    }

    /// Opens `path` like ``open(_:_:mode:)``, or returns `nil` when nothing is there (`ENOENT`).
    package static func openIfExists(
        _ path: String, _ flags: Int32, mode: mode_t = 0
    ) throws(Failure) -> FileDescriptor? {
        let descriptor = systemOpen(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .systemCall("open it", path: path, errno: errno)
        }
        return FileDescriptor(descriptor: descriptor, path: path)
    }

    /// Opens an existing regular file for reading.
    package static func openForReading(_ path: String) throws(Failure) -> FileDescriptor {
        let file = try open(path, O_RDONLY)
        guard try file.status().st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(path) }
        return file
    }

    /// Creates a new file, mode 0600, failing when the path exists (also as a symbolic link).
    package static func createExclusively(_ path: String) throws(Failure) -> FileDescriptor {
        let descriptor = systemOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .systemCall("create it", path: path, errno: errno) }
        let file = FileDescriptor(descriptor: descriptor, path: path)
        // The umask can only clear bits; this makes the mode exactly 0600 whatever it is.
        guard fchmod(descriptor, 0o600) == 0 else { throw .systemCall("set its mode", path: path, errno: errno) }
        return file
    }

    /// Creates an unnamed regular file in `directory` (`O_TMPFILE`), mode 0600, to be named by ``link(to:)`` once
    /// complete: until then no path leads to it, and it vanishes with its descriptor, also when the process is
    /// killed. `nil` where the file system or kernel has no unnamed files, or `/proc/self/fd` (which naming it
    /// needs) is not there: the caller then writes a named temporary file. `path` names it in messages.
    package static func createUnnamed(in directory: String, for path: String) -> FileDescriptor? {
        let descriptor = ck_open_unnamed(directory, 0o600)
        guard descriptor >= 0 else { return nil }
        let file = FileDescriptor(descriptor: descriptor, path: path)
        guard access("/proc/self/fd/\(descriptor)", F_OK) == 0, fchmod(descriptor, 0o600) == 0 else { return nil }
        return file
    }

    /// Names an unnamed file (``createUnnamed(in:for:)``): links it at `path`, which must not exist.
    package func link(to path: String) throws(Failure) {
        guard ck_link_unnamed(descriptor, path) == 0 else { throw .systemCall("name it", path: path, errno: errno) }
    }

    /// Names an unnamed file like ``link(to:)``, or returns `false` when something is at `path` already.
    package func linkIfFree(to path: String) throws(Failure) -> Bool {
        guard ck_link_unnamed(descriptor, path) == 0 else {
            if errno == EEXIST { return false }
            throw .systemCall("name it", path: path, errno: errno)
        }
        return true
    }

    /// The file's status (`fstat`): its type, mode, owner and size.
    package func status() throws(Failure) -> stat {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .systemCall("read its status", path: path, errno: errno)
        }
        return status
    }

    /// The file's size in bytes.
    package func size() throws(Failure) -> Int {
        Int(try status().st_size)
    }

    /// The file position (`lseek` from the current position by nothing).
    package func offset() throws(Failure) -> Int {
        let position = lseek(descriptor, 0, SEEK_CUR)
        guard position >= 0 else { throw .systemCall("read its position", path: path, errno: errno) }
        return Int(position)
    }

    /// Reads until `buffer` is full or the file ends; returns how many bytes were read (fewer only at the end).
    /// With an `offset`, reads from there (`pread`) and leaves the file position alone.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int? = nil) throws(Failure) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var total = 0
        while total < buffer.count {
            let count =
                if let offset {
                    pread(descriptor, base + total, buffer.count - total, off_t(offset + total))
                } else {
                    systemRead(descriptor, base + total, buffer.count - total)
                }
            if count > 0 {
                total += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw .systemCall("read it", path: path, errno: errno)
            }
        }
        return total
    }

    /// Reads up to `count` bytes (fewer only at the end of the file), from `offset` when one is given.
    package func readBytes(count: Int, at offset: Int? = nil) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(Failure) in try read(into: buffer, at: offset) }
        }
        bytes.removeSubrange(try result.get()...)
        return bytes
    }

    /// Writes all of `bytes`; with an `offset`, there (`pwrite`), leaving the file position alone.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int? = nil) throws(Failure) {
        guard let base = bytes.baseAddress else { return }
        var total = 0
        while total < bytes.count {
            let count =
                if let offset {
                    pwrite(descriptor, base + total, bytes.count - total, off_t(offset + total))
                } else {
                    systemWrite(descriptor, base + total, bytes.count - total)
                }
            if count >= 0 {
                total += count
            } else if errno != EINTR {
                throw .systemCall("write it", path: path, errno: errno)
            }
        }
    }

    /// Writes all of `bytes`; with an `offset`, there.
    package func write(_ bytes: [UInt8], at offset: Int? = nil) throws(Failure) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(Failure) in try write(buffer, at: offset) }
        }.get()
    }

    /// Flushes the file's data and metadata to the disk.
    package func synchronize() throws(Failure) {
        guard fsync(descriptor) == 0 else { throw .systemCall("flush it to disk", path: path, errno: errno) }
    }

    /// Runs `body` holding the file's exclusive advisory lock (`flock`), which other processes' descriptors of the
    /// same file respect; waits for the lock.
    package func withExclusiveLock<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard flock(descriptor, LOCK_EX) == 0 else { throw .systemCall("lock it", path: path, errno: errno) }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Closes the file, reporting the error a deferred write may surface only now.
    package func close() throws(Failure) {
        guard descriptor >= 0 else { return }
        let result = systemClose(descriptor)
        descriptor = -1
        guard result == 0 else { throw .systemCall("close it", path: path, errno: errno) }
    }

    /// Flushes a directory, so that a rename or link in it is durable.
    package static func synchronizeDirectory(_ path: String) throws(Failure) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw .systemCall("open the directory", path: path, errno: errno) }
        defer { _ = systemClose(descriptor) }
        guard fsync(descriptor) == 0 else { throw .systemCall("flush the directory", path: path, errno: errno) }
    }
}

// The system calls under names the methods above do not shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
