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

    /// The short options.
    let letters: [Character: Kind]
    /// The long options.
    let longOptions: [LongOption]
    /// The options whose values are secrets: `-v` shows them as `"<secret>"`.
    let secretLetters: Set<Character>
    /// Whether options may follow positional arguments (GNU style). `false` for verbs whose arguments may begin
    /// with a dash, such as `error -25300`: every argument is then positional.
    let parsesOptions: Bool

    /// Options from a `getopt` string, long options and the letters whose values are secrets.
    init(_ letters: String, long: [LongOption] = [], secrets: Set<Character> = []) {
        var kinds: [Character: Kind] = [:]
        var previous: Character?
        for character in letters {
            switch character {
            case ":": previous.map { kinds[$0] = .value }
            case "?": previous.map { kinds[$0] = .valueOrPrompt }
            default:
                kinds[character] = .flag
                previous = character
            }
        }
        self.letters = kinds
        self.longOptions = long
        self.secretLetters = secrets
        self.parsesOptions = true
    }

    private init(positionalOnly: Void) {
        letters = [:]
        longOptions = []
        secretLetters = []
        parsesOptions = false
    }

    /// No options at all: every argument is positional, even one that begins with a dash.
    static let positionalOnly = OptionSpecification(positionalOnly: ())

}

extension OptionSpecification.LongOption {
    /// `--json`: the reading verbs' machine-readable output.
    static let json = OptionSpecification.LongOption(name: "json", takesValue: false)
}
