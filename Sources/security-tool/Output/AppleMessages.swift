import Foundation
import Security

/// Apple's message for a status code, such as "The specified item could not be found in the keychain." for
/// -25300: `security error` prints them, and every failure line quotes one. The table is the `Security` module's
/// (Apple's own framework on Apple's platforms), so the tool and `SecCopyErrorMessageString` never disagree.
enum AppleMessages {
    /// The message for `status`; Apple's fallback `OSStatus <n>` for a code it does not know.
    static func message(for status: Int32) -> String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
    }
}
