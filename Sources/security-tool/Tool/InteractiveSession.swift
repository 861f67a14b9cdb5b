/// `security -i`: commands read from standard input, one a line, in one process, so a keychain unlocked by
/// `unlock-keychain` stays unlocked for the commands after it, and secrets can come from the lines that follow a
/// command that asks for one (a trailing `-w`, `unlock-keychain` without `-p`) instead of argv.
///
/// As on macOS: the prompt goes to standard error, and only when standard input is a terminal; a command's
/// non-zero result is reported as `<verb>: returned <result>` unless `-q`; the session's result is the last
/// command's. `exit` or `quit`, or the end of input, ends it.
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
            guard var line = session.input.readLine() else { break }
            let words: [String]
            do {
                words = try LineSplitter.split(String(decoding: line, as: UTF8.self))
            } catch {
                SecretReader.zero(&line)
                session.console.printError("security: \(error.message)")
                result = 1
                continue
            }
            SecretReader.zero(&line)
            guard let first = words.first else { continue }
            if first == "exit" || first == "quit" { break }
            result = SecurityTool.execute(words, in: session)
            if result != 0, !session.isQuiet {
                session.console.printError("\(first): returned \(result)")
            }
        }
        return result
    }
}
