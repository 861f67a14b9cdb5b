import Foundation

extension Command {
    /// `error <error code(s)...>`: Apple's message for each code, as `Error: 0x<hex> <decimal> <message>`. The
    /// result is 1, as macOS's tool's is, even when every code was known.
    static let error = Command(
        name: "error",
        usage: """
            <error code(s)...>
            Display an error string for the given security-related error code.
            The error can be in decimal or hex, e.g. 1234 or 0x1234. Multiple errors can be separated by spaces.
            """,
        help: "Display a descriptive message for the given error code(s).", options: .positionalOnly
    ) { arguments, session throws(ToolFailure) in
        guard !arguments.positionals.isEmpty else { throw .usage("give at least one error code") }
        var codes: [Int32] = []
        for text in arguments.positionals {
            guard let code = ErrorCode.parse(text) else {
                throw .usage("\"\(text)\" is not an error code (decimal, 0x hex or 0 octal)")
            }
            codes.append(code)
        }
        for code in codes {
            let hex = String(UInt32(bitPattern: code), radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: 8 - hex.count) + hex
            session.console.print("Error: 0x\(padded) \(code) \(AppleMessages.message(for: code))")
        }
        return 1
    }
}

/// Error codes as `strtoul(…, 0)` reads them: decimal, `0x` hexadecimal or `0` octal, with an optional sign; the
/// value wraps to 32 bits as macOS's tool's does (`0xFFFF9D2C` is -25300).
enum ErrorCode {
    /// The code `text` spells, or `nil`.
    static func parse(_ text: String) -> Int32? {
        var digits = Substring(text)
        let isNegative = digits.hasPrefix("-")
        if isNegative || digits.hasPrefix("+") { digits = digits.dropFirst() }
        let radix: Int
        if digits.lowercased().hasPrefix("0x") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.hasPrefix("0"), digits.count > 1 {
            digits = digits.dropFirst()
            radix = 8
        } else {
            radix = 10
        }
        guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix), magnitude <= UInt64(UInt32.max) else {
            return nil
        }
        let value = UInt32(magnitude)
        return Int32(bitPattern: isNegative ? 0 &- value : value)
    }
}
