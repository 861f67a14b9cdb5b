/// What stays the same across the verbs of one process (one command, or every command of a `security -i`
/// session): the streams, the keychains opened so far, and the global options.
final class ToolSession {
    /// Standard output and standard error.
    let console = Console()
    /// Standard input, shared by the interactive session and the prompts that read it.
    let input = StandardInput()
    /// The keychains opened so far.
    let keychains = OpenKeychains()
    /// Whether `-v` asked to echo each command before it runs.
    var isVerbose = false
    /// Whether `-q` asked not to report a command's non-zero result in a session.
    var isQuiet = false

    /// Where secrets come from: the terminal, or standard input when it is not one.
    var secrets: SecretReader { SecretReader(input: input, console: console) }
}
