/// Bytes as hexadecimal text, two digits a byte: the one spelling of digests, references and object paths that
/// every module prints (`String(format:)` per byte goes through Foundation's formatter, which cost a Secret Service
/// item's object path more than the rest of its reply).
extension Sequence<UInt8> {
    /// The bytes in hexadecimal, lowercase unless `uppercase`.
    package func hexText(uppercase: Bool = false) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        digits.withUTF8Buffer { table in
            for byte in self {
                text.append(table[Int(byte >> 4)])
                text.append(table[Int(byte & 0x0f)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Hexadecimal text read back.
extension UInt8 {
    /// The value of one hex digit (either case), or `nil` when `digit` is none.
    package init?(hexDigit digit: UInt8) {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self = digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self = digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self = digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
