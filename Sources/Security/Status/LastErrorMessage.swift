import Foundation
import KeychainCore

/// **swift-keychain extension** (Apple's framework has no such function): why the calling thread's last `SecItem…`
/// call failed, naming the key or value at fault — for example `SecItemAdd: the attribute "srvr" does not exist for
/// class genp` — or `nil` when that call succeeded or no call has been made on this thread.
///
/// Apple's `SecCopyErrorMessageString` gives one fixed sentence per status code, which cannot say which of a
/// dictionary's keys was wrong; this function gives the detail, per thread like `errno`, so concurrent calls on other
/// threads do not overwrite it. Setting the environment variable `KEYCHAIN_LOG` (to anything) also writes each
/// failure's detail to standard error, for code that cannot be changed to ask.
public func SecCopyLastErrorMessage() -> CFString? {
    LastErrorMessage.current.map { NSString(string: $0) }
}

/// The per-thread record behind ``SecCopyLastErrorMessage()``.
enum LastErrorMessage {
    private static let threadKey = "swift-keychain.SecItem.lastErrorMessage"
    /// Whether failures are also written to standard error (read once, from the environment at first use).
    private static let logsFailures = ProcessEnvironment.current["KEYCHAIN_LOG"] != nil

    /// The calling thread's last failure, or `nil` after a success.
    static var current: String? {
        Thread.current.threadDictionary[threadKey] as? String
    }

    /// Records the outcome of a call: `nil` for success.
    static func record(_ message: String?) {
        Thread.current.threadDictionary[threadKey] = message
        if let message, logsFailures {
            FileHandle.standardError.write(Data("swift-keychain: \(message)\n".utf8))
        }
    }
}
