import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Copies of executables, and scripts, for tests to run.
///
/// Not `FileManager.copyItem`: it writes the copy through a descriptor without `O_CLOEXEC`, so a process another
/// test starts meanwhile (a daemon, a server) inherits the copy open for writing and keeps it so for its whole
/// life, and every run of the copy fails with ETXTBSY ("Text file busy").
public enum ExecutableCopy {
    /// Copies the file at `source` to `destination`, with permissions `mode`.
    public static func copy(_ source: String, to destination: String, mode: mode_t = 0o755) throws {
        try write(try Data(contentsOf: URL(fileURLWithPath: source)), to: destination, mode: mode)
    }

    /// Writes an executable (a script) at `destination`, replacing what is there, with permissions `mode`.
    public static func write(_ bytes: Data, to destination: String, mode: mode_t = 0o755) throws {
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("create \(destination)") }
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw failure("write \(destination)") }
                offset += written
            }
        }
        // The mode exactly, whatever the umask.
        guard fchmod(descriptor, mode) == 0 else { throw failure("chmod \(destination)") }
    }

    private static func failure(_ what: String) -> Error {
        let code = POSIXErrorCode(rawValue: errno) ?? .EIO
        return NSError(
            domain: NSPOSIXErrorDomain, code: Int(code.rawValue),
            userInfo: [NSLocalizedDescriptionKey: "cannot \(what): \(String(cString: strerror(code.rawValue)))"])
    }
}
