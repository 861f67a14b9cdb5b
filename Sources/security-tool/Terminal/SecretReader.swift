import Foundation
import Keychain
import KeychainCore
import Security

/// Where the secrets a verb needs come from, so none has to travel in argv: the terminal, without echo, when
/// standard input is one; otherwise a line of standard input (without its newline). In an interactive session fed
/// by a pipe, that is the session's next line.
///
/// A secret is bytes, taken as they are (UTF-8 or not), up to ``InputLimits/secretByteCount``; a longer line is
/// refused whole (`errSecParam`), never shortened. Passcodes are text: ``passcode(of:_:)`` refuses one that is not
/// UTF-8 rather than repair it into another passcode, and moves it into guarded memory without ever making a
/// `String` of it.
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
            var first = try Self.accept(terminal.readSecret(prompt: prompt), prompt)
            var second: [UInt8]
            do throws(ToolFailure) {
                second = try Self.accept(terminal.readSecret(prompt: retypePrompt), retypePrompt)
            } catch {
                Self.zero(&first)
                throw error
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
        return try Self.accept(terminal.readSecret(prompt: prompt), prompt)
    }

    /// The bytes of a secret an option gave (`-p password`), else those `ask` reads. The caller zeroes them.
    func given(
        _ value: String?, else ask: (SecretReader) throws(ToolFailure) -> [UInt8]
    ) throws(ToolFailure) -> [UInt8] {
        if let value { return Array(value.utf8) }
        return try ask(self)
    }

    /// A passcode's bytes, copied into guarded memory (the caller zeroes its own buffer). Bytes that are not UTF-8
    /// are refused (`errSecParam`): a keychain password is text, the same bytes whether set from an argument, a
    /// line or a prompt.
    static func passcode(of secret: [UInt8], _ what: String) throws(ToolFailure) -> Keychain.Passcode {
        let passcode: Keychain.Passcode
        do throws(EngineError) {
            passcode = try Keychain.Passcode(copying: secret)
        } catch {
            throw .failed(status: errSecAllocate, message: "cannot hold the \(what): \(error.message)")
        }
        guard passcode.isValidUTF8 else {
            throw .failed(
                status: errSecParam,
                message: "the \(what) is not valid UTF-8: a keychain password is text; nothing was changed")
        }
        return passcode
    }

    /// Overwrites a secret's bytes, in a way the compiler cannot drop. The storage is zeroed in place even when
    /// another value shares it (a copy-on-write would zero a fresh copy and leave the secret where it was).
    static func zero(_ bytes: inout [UInt8]) {
        bytes.wipe()
    }

    /// Overwrites a secret's bytes, if there is a secret.
    static func zero(_ data: inout Data?) {
        guard let count = data?.count else { return }
        data?.resetBytes(in: 0..<count)
    }

    private func secretFromInput(_ prompt: String) throws(ToolFailure) -> [UInt8] {
        switch input.readLine(limit: InputLimits.secretByteCount) {
        case nil:
            throw .failed(
                status: 1, message: "standard input ended where \"\(Self.subject(of: prompt))\" should have been")
        case .line(let line): return line
        case .tooLong(let count):
            throw InputLimits.tooLong("the \(Self.subject(of: prompt)) on standard input", byteCount: count)
        }
    }

    /// The bytes of a line typed at a prompt, or why there are none.
    static func accept(_ line: StandardInput.Line?, _ prompt: String) throws(ToolFailure) -> [UInt8] {
        switch line {
        case nil: throw .failed(status: 1, message: "no \(subject(of: prompt)) was typed")
        case .line(let line): return line
        case .tooLong(let count): throw InputLimits.tooLong("the \(subject(of: prompt)) typed", byteCount: count)
        }
    }

    /// `password for new keychain` for a prompt `password for new keychain: `.
    private static func subject(of prompt: String) -> String {
        prompt.trimmingCharacters(in: CharacterSet(charactersIn: ": "))
    }
}
