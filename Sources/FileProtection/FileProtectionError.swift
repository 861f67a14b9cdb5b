import Foundation
import KeychainCore

/// The one error the `FileProtection` API throws: Apple's `OSStatus` for what went wrong and a message that names
/// the file and the cause.
///
/// - ``interactionNotAllowed``: the file's class is unavailable in the keychain's lock state. The file is left
///   as it was.
/// - ``decode``: the file is not a protected file of this keychain, or it was altered, truncated, reordered or
///   spliced. None of its contents is returned.
/// - ``param``: an argument is not valid (an unknown class, a closed handle, an unsupported attribute).
/// - ``ioError`` and ``diskFull``: the file system failed.
///
/// Errors compare by ``status`` alone, so new statuses can be added without breaking a caller's checks, and
/// `catch FileProtectionError.decode` matches whatever the thrown type: the shape `KeychainError` shares
/// (KeychainCore's `StatusError`).
public struct FileProtectionError: StatusError {
    /// Apple's `OSStatus` value, such as `-25308` for `errSecInteractionNotAllowed`.
    public let status: Int32
    /// What went wrong, naming the file and the cause.
    public let message: String

    /// Creates an error with a status and a message.
    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// Matches any error that is a `FileProtectionError` with this status, so `catch FileProtectionError.decode` works whatever the thrown
    /// type.
    public static func ~= (pattern: FileProtectionError, value: any Error) -> Bool { pattern.matches(value) }

    /// `errSecInteractionNotAllowed` (-25308): the file's protection class is unavailable while the keychain is
    /// locked (or before its first unlock).
    public static let interactionNotAllowed = FileProtectionError(
        .interactionNotAllowed, "the file's protection class is unavailable in the keychain's lock state")
    /// `errSecDecode` (-26275): the file is damaged, altered, truncated, spliced, or not a protected file of this
    /// keychain.
    public static let decode = FileProtectionError(.decode, "the protected file cannot be decoded")
    /// `errSecParam` (-50): an argument is not valid.
    public static let param = FileProtectionError(.param, "a parameter is not valid")
    /// `errSecIO` (-36): the file system failed.
    public static let ioError = FileProtectionError(.ioError, "an I/O error occurred")
    /// `errSecDiskFull` (-34): the disk is full.
    public static let diskFull = FileProtectionError(.diskFull, "the disk is full")
    /// `errSecDuplicateItem` (-25299): the destination exists and overwriting it was not allowed.
    public static let duplicateItem = FileProtectionError(.duplicateItem, "the file already exists")
    /// `errSecInvalidKeychain` (-25295): the keychain's files are not a valid keychain.
    public static let invalidKeychain = FileProtectionError(.invalidKeychain, "the keychain is not valid")

}

extension FileProtectionError {
    /// The single mapping from the engine's error: its status kept, its message prefixed by the file at fault.
    init(_ error: EngineError, path: String) {
        self.init(error, prefix: path)
    }

    /// The error for a failed system call on `path`, from `errno`.
    static func system(_ what: String, path: String, errno code: Int32) -> FileProtectionError {
        let reason = String(cString: strerror(code))
        let status: EngineError.Code =
            switch code {
            case ENOSPC, EDQUOT: .diskFull
            case EEXIST: .duplicateItem
            default: .ioError
            }
        return FileProtectionError(status, "\(path): cannot \(what): \(reason)")
    }
}
