import Foundation

/// Apple's message for every status code, and the detailed reason of the last failed call.
enum StatusMessages {
    /// Every code's message, from the tables beside the codes.
    static let all: [OSStatus: String] =
        general
        .merging(trust) { first, _ in first }
        .merging(modules) { first, _ in first }
        .merging(keyAttributes) { first, _ in first }
        .merging(certificates) { first, _ in first }

    /// The first and last values of `errno` mapped into status codes (`errSecErrnoBase` + errno).
    static let errnoRange: ClosedRange<OSStatus> = 100_000...100_255

    /// Apple's message for a status, with Apple's fallbacks: `UNIX[…]` for an errno code, `OSStatus <n>` otherwise.
    static func message(for status: OSStatus) -> String {
        if let message = all[status] { return message }
        if errnoRange.contains(status) {
            return "UNIX[\(String(cString: strerror(status - errnoRange.lowerBound)))]"
        }
        return "OSStatus \(status)"
    }
}

/// Returns Apple's message for a status code (the text of `SecErrorMessages.strings`), such as "The specified
/// item could not be found in the keychain." for `errSecItemNotFound`. `reserved` must be `nil`.
///
/// The message says what the code means, not why a call failed; ``SecCopyLastErrorMessage()`` says why.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: StatusMessages.message(for: status))
}
