import Foundation
import KeychainCore

/// The folder store reads and writes through KeychainCore's file-descriptor layer; a failed call there means the
/// folder cannot be used now (unmounted, full, not permitted), which may pass: `.unavailable`.
extension SyncStoreError: FileDescriptorFailure {
    package static func systemCall(_ what: String, path: String, errno: Int32) -> SyncStoreError {
        SyncStoreError(.unavailable, "cannot \(what), \(path): \(String(cString: strerror(errno)))")
    }

    package static func notRegularFile(_ path: String) -> SyncStoreError {
        SyncStoreError(.damaged, "the record \(path) is not a regular file")
    }
}
