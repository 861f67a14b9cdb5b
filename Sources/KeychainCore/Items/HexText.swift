/// Bytes as hexadecimal text, two digits a byte: the one spelling of digests, references and object paths that
/// every module prints (`String(format:)` per byte goes through Foundation's formatter, which cost a Secret Service
/// item's object path more than the rest of its reply).
extension Sequence<UInt8> {
    /// The bytes in hexadecimal, lowercase unless `uppercase`.
    package func hexText(uppercase: Bool = false) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(UInt8(hexDigitOf: byte >> 4, uppercase: uppercase))
            text.append(UInt8(hexDigitOf: byte & 0x0f, uppercase: uppercase))
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// One hex digit, written and read back.
extension UInt8 {
    /// The ASCII digit of `value` (0 to 15), lowercase unless `uppercase`.
    package init(hexDigitOf value: UInt8, uppercase: Bool = false) {
        self = value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }

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
