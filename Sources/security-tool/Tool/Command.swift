/// One verb of the tool: its name, usage and help as `security help` prints them, the options it takes, and what it
/// does. Each verb is a static member defined in its own file under `Commands/`; `Command.all` lists them.
struct Command: Sendable {
    /// What a verb does with its parsed arguments; it returns its result (0, or an `OSStatus` whose low byte is the
    /// exit status) or throws a failure the tool prints.
    typealias Action = @Sendable (ParsedArguments, ToolSession) throws(ToolFailure) -> Int32

    /// The verb, such as `find-generic-password`.
    let name: String
    /// One line saying what the verb does.
    let help: String
    /// The options the verb takes.
    let options: OptionSpecification
    /// What the verb does.
    let run: Action
    /// The usage text, built when asked: some interpolate values, and a command that runs builds only its own.
    private let usageText: @Sendable () -> String

    /// The usage after the name, with the option list: `[-a account] [-s service] …`.
    var usage: String { usageText() }

    /// A verb; `usage` is evaluated only when the usage is printed.
    init(
        name: String, usage: @escaping @autoclosure @Sendable () -> String, help: String,
        options: OptionSpecification, run: @escaping Action
    ) {
        self.name = name
        self.usageText = usage
        self.help = help
        self.options = options
        self.run = run
    }

    /// The usage block a usage error prints, as macOS's tool does: `Usage: <name> <usage>` and the help line,
    /// indented by eight spaces.
    var usageBlock: String {
        "Usage: \(name) \(usage)\n        \(help)"
    }
}
