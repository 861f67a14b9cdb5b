import CSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file, read and written with plain system calls (retried on `EINTR`, short transfers completed), closed
/// when released. Every failure names the file.
final class FileDescriptor {
    /// The file's path, for messages.
    let path: String
    private var descriptor: Int32

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Opens an existing file for reading.
    static func openForReading(_ path: String) throws(FileProtectionError) -> FileDescriptor {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open it", path: path, errno: errno) }
        let file = FileDescriptor(descriptor: descriptor, path: path)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system("read its status", path: path, errno: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw FileProtectionError(.ioError, "\(path): is not a regular file")
        }
        return file
    }

    /// Creates a new file, mode 0600, failing when the path exists.
    static func createExclusively(_ path: String) throws(FileProtectionError) -> FileDescriptor {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .system("create it", path: path, errno: errno) }
        let file = FileDescriptor(descriptor: descriptor, path: path)
        // The umask can only clear bits; this makes the mode exactly 0600 whatever it is.
        guard fchmod(descriptor, 0o600) == 0 else { throw .system("set its mode", path: path, errno: errno) }
        return file
    }

    /// Creates an unnamed regular file in `directory` (`O_TMPFILE`), mode 0600, to be named by ``link(to:)`` once
    /// complete: until then no path leads to it, and it vanishes with its descriptor, also when the process is
    /// killed. `nil` where the file system or kernel has no unnamed files, or `/proc/self/fd` (which naming it
    /// needs) is not there: the caller then writes a named temporary file. `path` names it in messages.
    static func createUnnamed(in directory: String, for path: String) -> FileDescriptor? {
        let descriptor = ck_open_unnamed(directory, 0o600)
        guard descriptor >= 0 else { return nil }
        let file = FileDescriptor(descriptor: descriptor, path: path)
        guard access("/proc/self/fd/\(descriptor)", F_OK) == 0, fchmod(descriptor, 0o600) == 0 else { return nil }
        return file
    }

    /// Names an unnamed file (``createUnnamed(in:for:)``): links it at `path`, which must not exist.
    func link(to path: String) throws(FileProtectionError) {
        guard ck_link_unnamed(descriptor, path) == 0 else { throw .system("name it", path: path, errno: errno) }
    }

    /// The file's size in bytes.
    func size() throws(FileProtectionError) -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system("read its status", path: path, errno: errno) }
        return Int(status.st_size)
    }

    /// Reads until `buffer` is full or the file ends; returns how many bytes were read (fewer only at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileProtectionError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var total = 0
        while total < buffer.count {
            let count = systemRead(descriptor, base + total, buffer.count - total)
            if count > 0 {
                total += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw .system("read it", path: path, errno: errno)
            }
        }
        return total
    }

    /// Reads up to `count` bytes (fewer only at the end of the file).
    func readBytes(count: Int) throws(FileProtectionError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(FileProtectionError) in try read(into: buffer) }
        }
        bytes.removeSubrange(try result.get()...)
        return bytes
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(FileProtectionError) {
        guard let base = bytes.baseAddress else { return }
        var total = 0
        while total < bytes.count {
            let count = systemWrite(descriptor, base + total, bytes.count - total)
            if count >= 0 {
                total += count
            } else if errno != EINTR {
                throw .system("write it", path: path, errno: errno)
            }
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws(FileProtectionError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(FileProtectionError) in try write(buffer) } }.get()
    }

    /// Flushes the file's data and metadata to the disk.
    func synchronize() throws(FileProtectionError) {
        guard fsync(descriptor) == 0 else { throw .system("flush it to disk", path: path, errno: errno) }
    }

    /// Closes the file, reporting the error a deferred write may surface only now.
    func close() throws(FileProtectionError) {
        guard descriptor >= 0 else { return }
        let result = systemClose(descriptor)
        descriptor = -1
        guard result == 0 else { throw .system("close it", path: path, errno: errno) }
    }

    /// Flushes a directory, so that a rename or link in it is durable.
    static func synchronizeDirectory(_ path: String) throws(FileProtectionError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open the directory", path: path, errno: errno) }
        defer { _ = systemClose(descriptor) }
        guard fsync(descriptor) == 0 else { throw .system("flush the directory", path: path, errno: errno) }
    }
}

// The system calls under names the methods above do not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
