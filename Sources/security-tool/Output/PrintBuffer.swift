import Foundation

/// How macOS's tool prints a byte string (its `print_buffer`), so attribute lines read as they do on a Mac:
///
/// | bytes | printed |
/// |---|---|
/// | all printable ASCII, no backslash | `"text"` |
/// | some of each | `0x6361C3A9  "ca\303\251"`: uppercase hex, two spaces, the text with `\ooo` octal escapes |
/// | none printable | `0xDEADBEEF ` (one trailing space) |
/// | empty | nothing |
enum PrintBuffer {
    /// The bytes as macOS's tool prints them.
    static func format(_ bytes: some Collection<UInt8>) -> String {
        var hasText = false
        var hasBinary = false
        for byte in bytes {
            if isPlain(byte) { hasText = true } else { hasBinary = true }
        }
        var result = ""
        if hasBinary {
            result += "0x" + uppercaseHex(bytes) + (hasText ? "  " : " ")
        }
        if hasText {
            result += "\""
            for byte in bytes {
                if isPlain(byte) {
                    result.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    let octal = String(byte, radix: 8)
                    result += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
                }
            }
            result += "\""
        }
        return result
    }

    /// Writes a password and a newline as `-w` prints it: as is when every byte is printable (`isprint`, space and
    /// backslash included), otherwise the whole value in lowercase hex without a prefix. The text goes straight
    /// into the console's zeroed buffer, through a scratch buffer zeroed after use: no string copy of the password
    /// is left behind.
    static func writePasswordOnly(_ secret: Data, to console: Console) {
        if secret.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) {
            secret.withUnsafeBytes { console.write($0) }
        } else {
            let digits = Array("0123456789abcdef".utf8)
            var scratch = [UInt8](repeating: 0, count: 8192)
            defer { SecretReader.zero(&scratch) }
            var used = 0
            for byte in secret {
                scratch[used] = digits[Int(byte >> 4)]
                scratch[used + 1] = digits[Int(byte & 0xF)]
                used += 2
                if used == scratch.count {
                    scratch.withUnsafeBytes { console.write($0) }
                    used = 0
                }
            }
            scratch.withUnsafeBytes { console.write(UnsafeRawBufferPointer(rebasing: $0[..<used])) }
        }
        console.write(CollectionOfOne(UInt8(ascii: "\n")))
    }

    /// Uppercase hex, two digits a byte.
    static func uppercaseHex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { hexDigits($0, uppercase: true) }.joined()
    }

    /// Printable ASCII other than the backslash, which macOS escapes.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "\\")
    }

    private static func hexDigits(_ byte: UInt8, uppercase: Bool) -> String {
        let digits = String(byte, radix: 16, uppercase: uppercase)
        return digits.count == 1 ? "0" + digits : digits
    }
}
