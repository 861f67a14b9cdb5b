/// The options a verb takes, written as BSD `getopt` writes them, plus long options.
///
/// In `letters`, a letter alone is a flag (`"U"`), a letter followed by `:` takes a value (`"a:"`), and a letter
/// followed by `?` takes a value unless it is the last argument, where it means "ask for it" (`"w?"`: a trailing
/// `-w` prompts for the password, as macOS's tool does).
struct OptionSpecification: Sendable {
    /// How an option uses the argument after it.
    enum Kind: Sendable, Equatable {
        /// No value.
        case flag
        /// A value, always.
        case value
        /// A value, or, as the last argument, none: the command asks for it.
        case valueOrPrompt
    }

    /// A long option (`--json`, `--access-group group`).
    struct LongOption: Sendable {
        /// The name without the dashes.
        let name: String
        /// Whether the option takes a value.
        let takesValue: Bool
    }

    /// The short options, as a `getopt` string. Kept as text and scanned on use: a verb's options are a handful,
    /// and no hashed collection has to be set up when the tool starts.
    let letters: String
    /// The long options.
    let longOptions: [LongOption]
    /// The options whose values are secrets: `-v` shows them as `"<secret>"`.
    let secretLetters: String
    /// The options that take a value and may be given more than once (macOS's `-T appPath`). Any other option
    /// that takes a value, given twice, is a usage error: the tool never silently picks one of two values.
    let repeatableLetters: String
    /// Whether options may follow positional arguments (GNU style). `false` for verbs whose arguments may begin
    /// with a dash, such as `error -25300`: every argument is then positional.
    let parsesOptions: Bool

    /// Options from a `getopt` string, long options, the letters whose values are secrets and those that may be
    /// repeated.
    init(_ letters: String, long: [LongOption] = [], secrets: String = "", repeatable: String = "") {
        self.letters = letters
        self.longOptions = long
        self.secretLetters = secrets
        self.repeatableLetters = repeatable
        self.parsesOptions = true
    }

    private init(positionalOnly: Void) {
        letters = ""
        longOptions = []
        secretLetters = ""
        repeatableLetters = ""
        parsesOptions = false
    }

    /// How option `letter` uses the argument after it, or `nil` when the verb has no such option.
    func kind(of letter: Character) -> Kind? {
        guard letter != ":", letter != "?", let index = letters.firstIndex(of: letter) else { return nil }
        switch letters[letters.index(after: index)...].first {
        case ":": return .value
        case "?": return .valueOrPrompt
        default: return .flag
        }
    }

    /// No options at all: every argument is positional, even one that begins with a dash.
    static let positionalOnly = OptionSpecification(positionalOnly: ())

}

extension OptionSpecification.LongOption {
    /// `--json`: the reading verbs' machine-readable output.
    static let json = OptionSpecification.LongOption(name: "json", takesValue: false)
}
