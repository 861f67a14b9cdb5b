/// Splits a session line into arguments as macOS's tool does: whitespace separates them, `"…"` and `'…'` quote,
/// and a backslash takes the next character as it is, inside quotes or out.
enum LineSplitter {
    /// A line that ends inside quotes or after a lone backslash.
    struct UnfinishedLine: Error {
        /// What is wrong.
        let message: String
    }

    /// The arguments of `line`.
    static func split(_ line: String) throws(UnfinishedLine) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if escaped { throw UnfinishedLine(message: "the line ends with a lone backslash") }
        if let quote { throw UnfinishedLine(message: "the line ends inside \(quote)quotes\(quote)") }
        if inWord { words.append(current) }
        return words
    }
}
