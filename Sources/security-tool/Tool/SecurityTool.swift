/// The `security` command: macOS's global options (`-h`, `-i`, `-p prompt`, `-q`, `-v`; `-l` and `-R` accepted), and
/// root's `--user NAME` (another user's keychain, through keychaind), then a verb and its arguments, or an
/// interactive session reading commands from standard input.
///
/// The result of a verb is its exit status: 0, 1 for a failure without an `OSStatus`, 2 for a usage error, or the
/// low byte of an `OSStatus` (44 for a missing item, 45 for a duplicate, 36 when the keychain is locked and cannot
/// ask for its passcode), as macOS's tool exits.
///
/// Arguments are text: one that is not UTF-8 is a usage error naming it, never repaired into another name (two
/// account names would become one item). Output that cannot be written makes the result non-zero, with a message.
enum SecurityTool {
    /// Runs the tool with the arguments after the program name, as the bytes the process was given; returns the
    /// process's exit status.
    static func run(rawArguments: [[UInt8]]) -> Int32 {
        var arguments: [String] = []
        for (index, bytes) in rawArguments.enumerated() {
            guard let argument = String(validating: bytes, as: UTF8.self) else {
                let session = ToolSession()
                let option = index > 0 ? String(validating: rawArguments[index - 1], as: UTF8.self) : nil
                let role = option.map { $0.hasPrefix("-") ? ", the value of \($0)," : ", after \"\($0)\"," } ?? ""
                session.console.printError(
                    "security: argument \(index + 1) \(PrintBuffer.format(bytes))\(role) is not valid UTF-8: names, "
                        + "attributes and paths are text (give a binary password as -X hex, or on standard input)")
                return session.console.finish(2)
            }
            arguments.append(argument)
        }
        return run(arguments: arguments)
    }

    /// Runs the tool with the arguments after the program name; returns the process's exit status.
    static func run(arguments: [String]) -> Int32 {
        let session = ToolSession()
        return session.console.finish(run(arguments: arguments[...], in: session))
    }

    private static func run(arguments: ArraySlice<String>, in session: ToolSession) -> Int32 {
        var arguments = arguments
        var isInteractive = false
        var prompt = "security> "
        var isPromptGiven = false
        while let option = arguments.first, option.hasPrefix("-"), option.count > 1, option != "--" {
            arguments.removeFirst()
            if option == "--user" || option.hasPrefix("--user=") {
                let value = option == "--user" ? arguments.popFirst() : String(option.dropFirst("--user=".count))
                guard let value, !value.isEmpty else {
                    session.console.printError("security: option --user needs a user name or uid")
                    return globalUsage(session)
                }
                do throws(ToolFailure) {
                    try DefaultKeychain.select(user: value)
                } catch {
                    guard case .failed(let status, let message) = error else { return globalUsage(session) }
                    session.console.printError("security: \(message)")
                    return status
                }
                continue
            }
            var letters = option.dropFirst()
            while let letter = letters.popFirst() {
                switch letter {
                case "h":
                    return execute(["help"] + arguments, in: session) == 0 ? 0 : 1
                case "i": isInteractive = true
                case "p":
                    let value = letters.isEmpty ? arguments.popFirst() : String(letters)
                    letters = ""
                    guard let value else { return globalUsage(session) }
                    guard !isPromptGiven else {
                        session.console.printError("security: option -p is given twice: give it once")
                        return globalUsage(session)
                    }
                    isPromptGiven = true
                    prompt = value
                    isInteractive = true
                case "q": session.isQuiet = true
                case "v": session.isVerbose = true
                case "l", "R": break  // macOS's leak check and recovery mode: nothing to do here
                default:
                    return globalUsage(session)
                }
            }
        }
        if arguments.first == "--" { arguments.removeFirst() }
        if let verb = arguments.first, !isInteractive { DynamicTwin.handOff(verb: verb) }
        if !arguments.isEmpty { return execute(Array(arguments), in: session) }
        if isInteractive { return InteractiveSession(session: session, prompt: prompt).run() }
        return globalUsage(session)
    }

    /// Runs one command line (`verb arguments…`) and returns its result.
    static func execute(_ arguments: [String], in session: ToolSession) -> Int32 {
        guard let word = arguments.first else { return 0 }
        guard let command = Command.named(word) else {
            session.console.printError("security: unknown command \"\(word)\"")
            return 1
        }
        defer { session.console.flush() }
        do throws(ToolFailure) {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), specification: command.options)
            if session.isVerbose {
                session.console.printError(([command.name] + parsed.echoed.map { "\"\($0)\"" }).joined(separator: " "))
            }
            return try command.run(parsed, session)
        } catch {
            switch error {
            case .usage(let problem):
                if let problem { session.console.printError("security: \(command.name): \(problem)") }
                session.console.printError(command.usageBlock)
                return 2
            case .failed(let status, let message):
                session.console.printError("security: \(message)")
                return status
            }
        }
    }

    /// The global usage, on standard output as macOS prints it; the result is 2.
    private static func globalUsage(_ session: ToolSession) -> Int32 {
        session.console.print(
            """
            Usage: security [-h] [-i] [-l] [-p prompt] [-q] [-v] [command] [opt ...]
                -i    Run in interactive mode (lines up to \(InputLimits.describe(InputLimits.sessionLineByteCount))).
                -l    Accepted for compatibility (macOS runs leaks); does nothing.
                -p    Set the prompt to "prompt" (implies -i).
                -q    Be less verbose.
                -v    Be more verbose about what's going on.
                --user name
                      (root only) Use that user's (name or uid) default keychain, through keychaind;
                      with KEYCHAIN_DAEMON=off, their embedded one, acting as that user.
            security commands are:
            """)
        HelpListing.print(to: session.console)
        return 2
    }
}
