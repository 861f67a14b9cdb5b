import KeychainCore

/// Assuan's escaping (the protocol pinentry speaks): in a line, `%`, CR and LF are sent as `%25`, `%0D` and `%0A`;
/// a receiver decodes every `%XX`.
enum AssuanEscaping {
    /// `text` with `%`, CR and LF percent-escaped.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Decodes `bytes` (a `D` line's data) into `secret`, a byte at a time, so the decoded secret never exists
    /// outside guarded memory. `false` when a `%` is not followed by two hexadecimal digits.
    static func decode(_ bytes: UnsafeRawBufferPointer, into secret: SecretAccumulator) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                secret.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = UInt8(hexDigit: bytes[index + 1]),
                let low = UInt8(hexDigit: bytes[index + 2])
            else { return false }
            secret.append(high << 4 | low)
            index += 3
        }
        return true
    }
}
