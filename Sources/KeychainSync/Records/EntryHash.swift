import Foundation

/// The hash of a log entry as signed (its record's bytes): what the author's next entry names as ``LogEntry/previous``
/// and an exclusion pins as ``LogEntry/acceptedHash``.
enum EntryHash {
    static func of(_ record: [UInt8]) throws(SyncError) -> Data {
        try PublicDigest.digest("swift-keychain sync entry", Data(record), byteCount: 32)
    }
}
