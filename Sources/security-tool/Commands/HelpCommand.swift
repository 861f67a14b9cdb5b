extension Command {
    /// `help [command ...]`: every verb with its help line, or the usage of the verbs named.
    static let help = Command(
        name: "help", usage: "[command ...]", help: "Show all commands, or show usage for a command.",
        options: .positionalOnly
    ) { arguments, session throws(ToolFailure) in
        guard !arguments.positionals.isEmpty else {
            HelpListing.print(to: session.console)
            return 0
        }
        for word in arguments.positionals {
            guard let command = Command.named(word) else {
                session.console.printError("security: help: no such command: \(word)")
                return 1
            }
            session.console.print("Usage: \(command.name) \(command.usage)")
        }
        return 0
    }
}

/// The list of verbs: `    <name padded to 36> <help>` a line, as macOS's tool prints it.
enum HelpListing {
    /// Prints the list.
    static func print(to console: Console) {
        for command in Command.all {
            let padding = String(repeating: " ", count: max(1, 37 - command.name.count))
            console.print("    \(command.name)\(padding)\(command.help)")
        }
    }
}
