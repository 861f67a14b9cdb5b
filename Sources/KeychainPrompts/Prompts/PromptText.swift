import KeychainCore

/// The words a prompt shows, the same at the terminal and in pinentry.
struct PromptText {
    /// Who asks and why: `security wants to use your keychain: Unlock the vault`.
    let description: String
    /// What to type: `Keychain passcode:`.
    let label: String
    /// Why asking again, after a wrong secret; `nil` on the first attempt.
    let retry: String?

    init(_ request: SecretPromptRequest) {
        let program = Self.printable(request.callingProgram)
        let reason = request.operationPrompt.map(Self.printable).flatMap { $0.isEmpty ? nil : $0 }
        let what: String
        switch request.kind {
        case .passcode:
            what = "\(program.isEmpty ? "A program" : program) wants to use your keychain"
            label = "Keychain passcode:"
            retry = request.attempt > 1 ? "Wrong passcode, try again." : nil
        case .applicationPassword:
            what = "\(program.isEmpty ? "A program" : program) wants to use a keychain item protected by a password"
            label = "Application password:"
            retry = request.attempt > 1 ? "Wrong application password, try again." : nil
        }
        description = reason.map { "\(what): \($0)" } ?? "\(what)."
    }

    /// `text` with every control character but LF (C0, DEL, C1: escape sequences, carriage returns, backspaces)
    /// replaced by a space, so that text from the calling program cannot move the cursor back over what the prompt
    /// says or change the terminal's settings. Line breaks stay (pinentry gets them escaped as `%0A`).
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0 != "\n" && $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
