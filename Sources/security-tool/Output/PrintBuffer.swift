import Foundation
import KeychainCore

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
        let text = ZeroingBuffer()
        append(bytes, to: text)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    /// Appends the bytes as macOS's tool prints them to `text`, a byte at a time: a secret (`-g`, `dump-keychain
    /// -d`) is formatted straight into a zeroed buffer, with no string copy left behind.
    static func append(_ bytes: some Collection<UInt8>, to text: ZeroingBuffer) {
        var hasText = false
        var hasBinary = false
        for byte in bytes {
            if isPlain(byte) { hasText = true } else { hasBinary = true }
        }
        if hasBinary {
            text.append(contentsOf: "0x".utf8)
            for byte in bytes {
                text.append(UInt8(hexDigitOf: byte >> 4, uppercase: true))
                text.append(UInt8(hexDigitOf: byte & 0xF, uppercase: true))
            }
            text.append(contentsOf: (hasText ? "  " : " ").utf8)
        }
        if hasText {
            text.append(UInt8(ascii: "\""))
            for byte in bytes {
                if isPlain(byte) {
                    text.append(byte)
                } else {
                    text.append(UInt8(ascii: "\\"))
                    for shift: UInt8 in [6, 3, 0] { text.append(UInt8(ascii: "0") + ((byte >> shift) & 7)) }
                }
            }
            text.append(UInt8(ascii: "\""))
        }
    }

    /// Writes a password and a newline as `-w` prints it: as is when every byte is printable (`isprint`, space and
    /// backslash included), otherwise the whole value in lowercase hex without a prefix. The text goes straight
    /// into the console's zeroed buffer, through a scratch buffer zeroed after use: no string copy of the password
    /// is left behind.
    static func writePasswordOnly(_ secret: Data, to console: Console) {
        if secret.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) {
            secret.withUnsafeBytes { console.write($0) }
        } else {
            var scratch = [UInt8](repeating: 0, count: 8192)
            defer { SecretReader.zero(&scratch) }
            var used = 0
            for byte in secret {
                scratch[used] = UInt8(hexDigitOf: byte >> 4)
                scratch[used + 1] = UInt8(hexDigitOf: byte & 0xF)
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

    /// Printable ASCII other than the backslash, which macOS escapes.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "\\")
    }
}
