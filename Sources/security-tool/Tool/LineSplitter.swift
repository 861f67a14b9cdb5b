/// Splits a session line into arguments as macOS's tool does: whitespace separates them, `"…"` and `'…'` quote,
/// and a backslash takes the next character as it is, inside quotes or out.
///
/// It works on the line's UTF-8 bytes, as macOS's tool works on bytes, copying runs of ordinary bytes at once: a
/// line may hold a 16 MiB secret as `-X` hex, which character by character would take seconds to split.
/// Whitespace is Unicode's (a non-ASCII scalar is decoded only to ask whether it is whitespace).
enum LineSplitter {
    /// A line that ends inside quotes or after a lone backslash.
    struct UnfinishedLine: Error {
        /// What is wrong.
        let message: String
    }

    /// The arguments of `line`.
    static func split(_ line: String) throws(UnfinishedLine) -> [String] {
        var line = line
        return try line.withUTF8 { bytes in Result { () throws(UnfinishedLine) in try split(bytes) } }.get()
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) throws(UnfinishedLine) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        var inWord = false
        var quote: UInt8?
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else {
                    throw UnfinishedLine(message: "the line ends with a lone backslash")
                }
                // The whole next character, as it is: its first byte, and any continuation bytes after it.
                let end = scalarEnd(bytes, from: index)
                current += bytes[index..<end]
                index = end
                inWord = true
            } else if let open = quote {
                if byte == open {
                    quote = nil
                    index += 1
                } else {
                    let end = runEnd(bytes, from: index) { $0 != open && $0 != UInt8(ascii: "\\") }
                    current += bytes[index..<end]
                    index = end
                }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
                inWord = true
                index += 1
            } else if let end = whitespaceEnd(bytes, at: index) {
                if inWord { words.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
                inWord = false
                index = end
            } else {
                let end = runEnd(bytes, from: index) { isOrdinaryASCII($0) }
                // At least one byte: a non-ASCII character that is not whitespace goes whole.
                let stop = end > index ? end : scalarEnd(bytes, from: index)
                current += bytes[index..<stop]
                index = stop
                inWord = true
            }
        }
        if let quote {
            let mark = String(UnicodeScalar(quote))
            throw UnfinishedLine(message: "the line ends inside \(mark)quotes\(mark)")
        }
        if inWord { words.append(String(decoding: current, as: UTF8.self)) }
        return words
    }

    /// ASCII other than whitespace, quotes and the backslash.
    private static func isOrdinaryASCII(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'") && byte != UInt8(ascii: "\\")
            && !isASCIIWhitespace(byte)
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// Where the run of bytes that `belongs` accepts, from `start`, ends.
    private static func runEnd(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ belongs: (UInt8) -> Bool
    ) -> Int {
        var end = start
        while end < bytes.count, belongs(bytes[end]) { end += 1 }
        return end
    }

    /// Where the character (scalar) that starts at `start` ends: after its continuation bytes.
    private static func scalarEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var end = start + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return end
    }

    /// Where the whitespace character at `index` ends, or `nil` when it is not whitespace.
    private static func whitespaceEnd(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let byte = bytes[index]
        if byte < 0x80 { return isASCIIWhitespace(byte) ? index + 1 : nil }
        let end = scalarEnd(bytes, from: index)
        var decoder = UTF8()
        var iterator = bytes[index..<end].makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator), scalar.properties.isWhitespace else {
            return nil
        }
        return end
    }
}
