import Foundation

/// Where the secrets a verb needs come from, so none has to travel in argv: the terminal, without echo, when
/// standard input is one; otherwise a line of standard input (without its newline). In an interactive session fed
/// by a pipe, that is the session's next line.
struct SecretReader {
    /// The session's standard input.
    let input: StandardInput
    /// Where mismatch messages go.
    let console: Console

    /// How many times a mistyped pair is asked again, as macOS's tool does.
    private static let attempts = 3

    /// A secret to store (an item's password, a keychain's new passcode): typed twice on a terminal, read once
    /// from standard input otherwise. The caller zeroes it.
    func newSecret(prompt: String, retypePrompt: String) throws(ToolFailure) -> [UInt8] {
        guard input.isTerminal, let terminal = TerminalDevice.open() else { return try secretFromInput(prompt) }
        for _ in 0..<Self.attempts {
            guard var first = terminal.readSecret(prompt: prompt) else { throw Self.ended(prompt) }
            guard var second = terminal.readSecret(prompt: retypePrompt) else {
                Self.zero(&first)
                throw Self.ended(retypePrompt)
            }
            defer { Self.zero(&second) }
            if first == second { return first }
            Self.zero(&first)
            console.printError("passwords don't match")
        }
        throw .failed(status: 1, message: "passwords don't match after \(Self.attempts) tries")
    }

    /// A secret asked once (a passcode to unlock with, a current passcode). The caller zeroes it.
    func secret(prompt: String) throws(ToolFailure) -> [UInt8] {
        guard input.isTerminal, let terminal = TerminalDevice.open() else { return try secretFromInput(prompt) }
        guard let secret = terminal.readSecret(prompt: prompt) else { throw Self.ended(prompt) }
        return secret
    }

    /// The bytes of a secret an option gave (`-p password`), else those `ask` reads. The caller zeroes them.
    func given(
        _ value: String?, else ask: (SecretReader) throws(ToolFailure) -> [UInt8]
    ) throws(ToolFailure) -> [UInt8] {
        if let value { return Array(value.utf8) }
        return try ask(self)
    }

    /// Overwrites a secret's bytes.
    static func zero(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }

    /// Overwrites a secret's bytes, if there is a secret.
    static func zero(_ data: inout Data?) {
        guard let count = data?.count else { return }
        data?.resetBytes(in: 0..<count)
    }

    private func secretFromInput(_ prompt: String) throws(ToolFailure) -> [UInt8] {
        guard let line = input.readLine() else {
            throw .failed(
                status: 1, message: "standard input ended where \"\(Self.subject(of: prompt))\" should have been")
        }
        return line
    }

    private static func ended(_ prompt: String) -> ToolFailure {
        .failed(status: 1, message: "no \(subject(of: prompt)) was typed")
    }

    /// `password for new keychain` for a prompt `password for new keychain: `.
    private static func subject(of prompt: String) -> String {
        prompt.trimmingCharacters(in: CharacterSet(charactersIn: ": "))
    }
}
