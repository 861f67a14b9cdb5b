import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine's files (the device key, the keychain directory's, the high-water mark) fail with its one error.
extension EngineError: FileDescriptorFailure {
    /// `path: cannot <what>: <reason>`, with the status of `errno` (``systemCode(_:)``).
    package static func systemCall(_ what: String, path: String, errno code: Int32) -> EngineError {
        EngineError(systemCode(code), "\(path): cannot \(what): \(String(cString: strerror(code)))")
    }

    /// A keychain file that is a link, a directory or a device is not a valid keychain's.
    package static func notRegularFile(_ path: String) -> EngineError {
        EngineError(.invalidKeychain, "\(path) is not a regular file")
    }

    /// The status of a failed system call's `errno`: a full disk or quota, a read-only file system, or I/O.
    package static func systemCode(_ code: Int32) -> EngineError.Code {
        switch code {
        case ENOSPC, EDQUOT: .diskFull
        case EROFS: .writePermission
        default: .ioError
        }
    }
}
