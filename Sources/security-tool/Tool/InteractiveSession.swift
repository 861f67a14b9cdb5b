import CSystem

/// `security -i`: commands read from standard input, one a line, in one process, so a keychain unlocked by
/// `unlock-keychain` stays unlocked for the commands after it, and secrets can come from the lines that follow a
/// command that asks for one (a trailing `-w`, `unlock-keychain` without `-p`) instead of argv.
///
/// As on macOS: the prompt goes to standard error, and only when standard input is a terminal; a command's
/// non-zero result is reported as `<verb>: returned <result>` unless `-q`; the session's result is the last
/// command's. `exit` or `quit`, or the end of input, ends it.
///
/// A line longer than ``InputLimits/sessionLineByteCount``, or one that is not UTF-8, is refused whole (result 2)
/// and the session goes on with the next line; output that cannot be written ends the session.
struct InteractiveSession {
    /// The process's session.
    let session: ToolSession
    /// The prompt.
    let prompt: String

    /// Runs commands until the end of input; returns the last command's result.
    func run() -> Int32 {
        var result: Int32 = 0
        while true {
            if session.input.isTerminal {
                session.console.flush()
                Console.writeAll(Array(prompt.utf8), to: 2)
            }
            guard let read = session.input.readLine(limit: InputLimits.sessionLineByteCount) else { break }
            guard case .line(var line) = read, let text = String(validating: line, as: UTF8.self) else {
                if case .line(var line) = read { SecretReader.zero(&line) }
                session.console.printError("security: \(Self.refusal(of: read)); nothing of it was run")
                result = 2
                continue
            }
            SecretReader.zero(&line)  // the line may hold a secret (`-w secret`, `-X hex`); the words keep their copy
            let words: [String]
            do {
                words = try LineSplitter.split(text)
            } catch {
                session.console.printError("security: \(error.message)")
                result = 1
                continue
            }
            guard let first = words.first else { continue }
            if first == "exit" || first == "quit" { break }
            result = SecurityTool.execute(words, in: session)
            if result != 0, !session.isQuiet {
                session.console.printError("\(first): returned \(result)")
            }
            session.console.flush()
            // The command's dead frames may hold copies of its secrets (registers the dynamic linker saved there).
            ck_scrub_stack(64 * 1024)
            // Output that cannot be written ends the session: what the next commands print would be lost too.
            if session.console.hasFailed { break }
        }
        return result
    }

    /// Why a line was refused: too long, or not UTF-8.
    private static func refusal(of line: StandardInput.Line) -> String {
        switch line {
        case .tooLong(let count):
            "the line is \(count) bytes, longer than the limit of \(InputLimits.describe(InputLimits.sessionLineByteCount)) (a secret of \(InputLimits.describe(InputLimits.secretByteCount)) as -X hex, and its command)"
        case .line:
            "the line is not valid UTF-8 (names and options are text; give a binary password as -X hex, or on the next line after a trailing -w)"
        }
    }
}
