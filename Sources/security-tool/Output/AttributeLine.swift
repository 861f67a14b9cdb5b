import Foundation

/// One line of an item's `attributes:` block, as macOS's tool prints it: `    "acct"<blob>="alice"`.
struct AttributeLine {
    /// The attribute's tag: a number (the label is `0x00000007`) or a four-character code.
    enum Tag {
        case number(UInt32)
        case code(String)
    }

    /// The attribute's format, printed between angle brackets.
    enum Format: String {
        case blob, timedate, uint32, sint32
    }

    /// The tag.
    let tag: Tag
    /// The format.
    let format: Format
    /// The value's bytes, or `nil` for `<NULL>`.
    let bytes: [UInt8]?

    /// A line with the value's bytes, or `<NULL>` when `bytes` is `nil`.
    init(_ tag: Tag, _ format: Format, _ bytes: [UInt8]?) {
        self.tag = tag
        self.format = format
        self.bytes = bytes
    }

    /// A line for a four-character tag.
    init(_ code: String, _ format: Format, _ bytes: [UInt8]?) {
        self.init(.code(code), format, bytes)
    }

    /// `    "acct"<blob>="alice"`.
    var text: String {
        let tagText =
            switch tag {
            case .number(let number): PrintBuffer.format(Self.bigEndian(number))
            case .code(let code): PrintBuffer.format(Array(code.utf8))
            }
        let value = bytes.map { PrintBuffer.format($0) } ?? "<NULL>"
        return "    \(tagText)<\(format.rawValue)>=\(value)"
    }

    /// The order macOS prints attributes in: by tag, read as a big-endian number (so the label's `0x00000007`
    /// comes first, then `"acct"`, `"agrp"`, … `"type"`).
    var order: UInt32 {
        switch tag {
        case .number(let number): number
        case .code(let code): code.utf8.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    // MARK: Values

    /// Text as a blob; `nil` or empty text is `<NULL>`.
    static func text(_ text: String?) -> [UInt8]? {
        guard let text, !text.isEmpty else { return nil }
        return Array(text.utf8)
    }

    /// A four-character code or number as a `uint32`, big-endian; `nil` is `<NULL>`.
    static func number(_ number: UInt32?) -> [UInt8]? {
        number.map(bigEndian)
    }

    /// A flag as an `sint32`: `1` when set, `<NULL>` when not (as macOS prints an attribute never written).
    static func flag(_ flag: Bool) -> [UInt8]? {
        flag ? bigEndian(1) : nil
    }

    /// A date as macOS stores it: `YYYYMMDDhhmmssZ` and a NUL, in UTC.
    static func date(_ date: Date?) -> [UInt8]? {
        date.map { Array(UTCTime(date: $0).compact.utf8) + [0] }
    }

    private static func bigEndian(_ number: UInt32) -> [UInt8] {
        [UInt8(number >> 24), UInt8(number >> 16 & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number & 0xFF)]
    }
}
