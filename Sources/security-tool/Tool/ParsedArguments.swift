/// A verb's arguments after option parsing.
struct ParsedArguments {
    /// Each short option given with its value, in order (a flag's value is empty).
    private var values: [(letter: Character, value: String)] = []
    /// The `valueOrPrompt` options given last without a value: the command asks for them.
    private(set) var prompted: [Character] = []
    /// Each long option given with its value, in order.
    private var longValues: [(name: String, value: String)] = []
    /// The positional arguments (keychains, mostly), in order.
    private(set) var positionals: [String] = []
    /// The arguments as `-v` echoes them: secrets replaced by `<secret>`.
    private(set) var echoed: [String] = []

    /// Parses `arguments` by `specification`. Throws a usage failure that names the offending option: an unknown
    /// one, one without its value, or one that takes a value given twice (unless the specification lets it repeat).
    init(_ arguments: [String], specification: OptionSpecification) throws(ToolFailure) {
        guard specification.parsesOptions else {
            positionals = arguments
            echoed = arguments
            return
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals += arguments[index...]
                echoed += ["--"] + arguments[index...]
                break
            }
            if argument.hasPrefix("--") {
                try parseLong(argument, arguments, &index, specification)
            } else if argument.hasPrefix("-"), argument.count > 1 {
                try parseShort(argument, arguments, &index, specification)
            } else {
                positionals.append(argument)
                echoed.append(argument)
            }
        }
    }

    /// Whether option `letter` was given.
    func has(_ letter: Character) -> Bool { value(letter) != nil || prompted.contains(letter) }

    /// The last value of option `letter`, or `nil`.
    func value(_ letter: Character) -> String? { values.last { $0.letter == letter }?.value }

    /// Whether long option `name` was given.
    func has(long name: String) -> Bool { value(long: name) != nil }

    /// The last value of long option `name`, or `nil`.
    func value(long name: String) -> String? { longValues.last { $0.name == name }?.value }

    // MARK: Private

    private mutating func parseLong(
        _ argument: String, _ arguments: [String], _ index: inout Int, _ specification: OptionSpecification
    ) throws(ToolFailure) {
        let body = argument.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let attached = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        guard let option = specification.longOptions.first(where: { $0.name == name }) else {
            throw .usage("unknown option --\(name)")
        }
        guard option.takesValue else {
            guard attached == nil else { throw .usage("option --\(name) takes no value") }
            longValues.append((name, ""))
            echoed.append(argument)
            return
        }
        guard !longValues.contains(where: { $0.name == name }) else {
            throw .usage("option --\(name) is given twice: give it once")
        }
        if let attached {
            longValues.append((name, attached))
            echoed.append(argument)
        } else if index < arguments.count {
            longValues.append((name, arguments[index]))
            echoed += [argument, arguments[index]]
            index += 1
        } else {
            throw .usage("option --\(name) needs a value")
        }
    }

    private mutating func parseShort(
        _ argument: String, _ arguments: [String], _ index: inout Int, _ specification: OptionSpecification
    ) throws(ToolFailure) {
        var letters = argument.dropFirst()
        var shown = "-"
        while let letter = letters.popFirst() {
            guard let kind = specification.kind(of: letter) else {
                throw .usage(letter == "h" ? nil : "unknown option -\(letter)")
            }
            shown.append(letter)
            if kind == .flag {
                values.append((letter, ""))
                continue
            }
            guard specification.repeatableLetters.contains(letter) || !has(letter) else {
                throw .usage("option -\(letter) is given twice: give it once")
            }
            let isSecret = specification.secretLetters.contains(letter)
            if !letters.isEmpty {
                values.append((letter, String(letters)))
                shown += isSecret ? "<secret>" : String(letters)
            } else if index < arguments.count {
                values.append((letter, arguments[index]))
                echoed.append(shown)
                shown = isSecret ? "<secret>" : arguments[index]
                index += 1
            } else if kind == .valueOrPrompt {
                prompted.append(letter)
            } else {
                throw .usage("option -\(letter) needs a value")
            }
            break
        }
        echoed.append(shown)
    }
}
