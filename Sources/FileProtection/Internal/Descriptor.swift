import KeychainCore

/// The files `FileProtection` reads and writes: KeychainCore's one descriptor layer, failing with this module's
/// error.
typealias Descriptor = FileDescriptor<FileProtectionError>

/// Protected files are written with KeychainCore's one atomic writer, failing with this module's error.
typealias AtomicFile = KeychainCore.AtomicFile<FileProtectionError>

extension FileProtectionError: FileDescriptorFailure {
    /// `path: cannot <what>: <reason>`, with the status of `errno` (``system(_:path:errno:)``).
    package static func systemCall(_ what: String, path: String, errno: Int32) -> FileProtectionError {
        system(what, path: path, errno: errno)
    }

    /// A protected file must be a regular file.
    package static func notRegularFile(_ path: String) -> FileProtectionError {
        FileProtectionError(.ioError, "\(path): is not a regular file")
    }
}
