import Foundation

/// A JSON document, written by hand so the output is exactly what the tool means: keys sorted, one line, no
/// encoder loaded unless `--json` asks for it.
enum JSONValue {
    case string(String)
    case number(Int64)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Data as base64 text.
    static func data(_ data: Data) -> JSONValue { .string(data.base64EncodedString()) }

    /// A date as ISO 8601 text in UTC.
    static func date(_ date: Date) -> JSONValue { .string(UTCTime(date: date).iso8601) }

    /// The document on one line.
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let string): Self.write(string, to: &output)
        case .number(let number): output += String(number)
        case .bool(let bool): output += bool ? "true" : "false"
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.write(key, to: &output)
                output += ":"
                members[key]?.write(to: &output)
            }
            output += "}"
        }
    }

    private static func write(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
