import Foundation

/// A typed attribute value.
public enum AttributeValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A signed integer (also four-character codes and ports).
    case integer(Int64)
    /// A point in time.
    case date(Date)
    /// A flag.
    case bool(Bool)

    /// The type of an attribute value.
    public enum Kind: String, Sendable, Codable {
        /// Text.
        case string
        /// Bytes.
        case data
        /// A signed integer.
        case integer
        /// A point in time.
        case date
        /// A flag.
        case bool
    }

    /// The value's type.
    public var kind: Kind {
        switch self {
        case .string: .string
        case .data: .data
        case .integer: .integer
        case .date: .date
        case .bool: .bool
        }
    }

    /// The text, when the value is text.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The bytes, when the value is bytes.
    public var dataValue: Data? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The text of text, or of bytes that are valid UTF-8; `nil` otherwise.
    public var textValue: String? {
        switch self {
        case .string(let value): value
        case .data(let value): String(validating: value, as: UTF8.self)
        default: nil
        }
    }

    /// Whether two values of `attribute` are the same: text and bytes of a blob attribute
    /// (``AttributeKey/holdsTextOrBytes``) when the text's UTF-8 is those bytes, else by equality.
    public func isSame(as other: AttributeValue, for attribute: AttributeKey) -> Bool {
        switch (self, other) {
        case (.string(let text), .data(let bytes)), (.data(let bytes), .string(let text)):
            attribute.holdsTextOrBytes && text.utf8.elementsEqual(bytes)
        default: self == other
        }
    }

    /// The integer, when the value is an integer.
    public var integerValue: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The date, when the value is a date.
    public var dateValue: Date? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The flag, when the value is a flag.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// A short rendering for messages (data as its length; text quoted).
    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .data(let value): "<\(value.count) bytes>"
        case .integer(let value): String(value)
        case .date(let value): value.formatted(.iso8601)
        case .bool(let value): String(value)
        }
    }
}
