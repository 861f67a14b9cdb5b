import Keychain

/// Why a verb stopped without doing its work.
enum ToolFailure: Error {
    /// The arguments are wrong: the tool prints what is wrong (`nil` for a plain `-h`), then the verb's usage, and
    /// returns 2, as macOS's tool does.
    case usage(String?)
    /// The operation failed: the tool prints `security: <message>` and returns `status`, an `OSStatus` (the exit
    /// status is its low byte: 44 for a missing item) or 1 for a failure that has none.
    case failed(status: Int32, message: String)

    /// A keychain error in macOS's words: `<context>: <Apple's message for the status>`, followed by our detail,
    /// which names the item, value or file at fault.
    static func keychain(_ error: KeychainError, _ context: String) -> ToolFailure {
        .failed(
            status: error.status, message: "\(context): \(AppleMessages.message(for: error.status)) (\(error.message))"
        )
    }

    /// A status without detail, in macOS's exact words: `<context>: <Apple's message>`.
    static func status(_ status: Int32, _ context: String) -> ToolFailure {
        .failed(status: status, message: "\(context): \(AppleMessages.message(for: status))")
    }
}
