import Foundation

/// X.501 names as Apple's keychain compares them: a certificate item's `issr` and `subj` hold the normalized content
/// of the name (its relative distinguished names without the outer SEQUENCE), and a query's issuer given as a whole
/// name is normalized the same way, so two encodings of one name find each other.
///
/// The normalization is RFC 5280's rule for PrintableString values (§7.1, after X.520): compared case-insensitively
/// and with white space collapsed — upper-cased ASCII, leading and trailing blanks dropped, runs of blanks made one
/// space. Values of any other string type, and every attribute type, are kept byte for byte.
package enum DistinguishedName {
    private static let sequenceTag: UInt8 = 0x30
    private static let setTag: UInt8 = 0x31
    private static let printableStringTag: UInt8 = 0x13

    /// The normalized content of the DER name `der` (a SEQUENCE of RDN SETs), or `nil` when it is not one.
    package static func normalizedContent(of der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard let name = element(in: bytes, at: 0), name.tag == sequenceTag, name.end == bytes.count else {
            return nil
        }
        return normalizedContent(ofContent: bytes, name.content)
    }

    /// The normalized name as a whole DER SEQUENCE (`SecCertificateCopyNormalizedIssuerSequence`'s form).
    package static func normalizedSequence(of der: Data) -> Data? {
        normalizedContent(of: der).map { Data(encode(sequenceTag, [UInt8]($0))) }
    }

    private static func normalizedContent(ofContent bytes: [UInt8], _ range: Range<Int>) -> Data? {
        var output: [UInt8] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            // Every RDN a non-empty SET of type-and-value SEQUENCEs.
            guard let rdn = element(in: bytes, at: offset, within: range.upperBound), rdn.tag == setTag,
                !rdn.content.isEmpty
            else { return nil }
            var pairs: [UInt8] = []
            var inner = rdn.content.lowerBound
            while inner < rdn.content.upperBound {
                guard let pair = element(in: bytes, at: inner, within: rdn.content.upperBound),
                    pair.tag == sequenceTag,
                    let type = element(in: bytes, at: pair.content.lowerBound, within: pair.content.upperBound),
                    type.content.count > 0,
                    let value = element(in: bytes, at: type.end, within: pair.content.upperBound),
                    value.end == pair.content.upperBound
                else { return nil }
                var body = Array(bytes[pair.content.lowerBound..<type.end])
                if value.tag == printableStringTag {
                    body += encode(value.tag, normalized(bytes[value.content]))
                } else {
                    body += bytes[value.start..<value.end]
                }
                pairs += encode(pair.tag, body)
                inner = pair.end
            }
            output += encode(rdn.tag, pairs)
            offset = rdn.end
        }
        return Data(output)
    }

    /// A PrintableString's characters upper-cased, its blanks collapsed and trimmed.
    private static func normalized(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        var pendingBlank = false
        for byte in text {
            if byte == 0x20 || byte == 0x09 {
                pendingBlank = !output.isEmpty
                continue
            }
            if pendingBlank { output.append(0x20) }
            pendingBlank = false
            output.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
        }
        return output
    }

    /// One DER element: its tag, where it starts and ends, and its content's range.
    private struct Element {
        var tag: UInt8
        var start: Int
        var content: Range<Int>
        var end: Int { content.upperBound }
    }

    /// The element at `offset`, definite-length, single-byte tag, ending within `limit`; `nil` when malformed.
    private static func element(in bytes: [UInt8], at offset: Int, within limit: Int? = nil) -> Element? {
        let limit = limit ?? bytes.count
        guard offset + 2 <= limit else { return nil }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { return nil }  // a multi-byte tag: not in a name
        var length = Int(bytes[offset + 1])
        var contentStart = offset + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), contentStart + count <= limit else { return nil }
            length = bytes[contentStart..<(contentStart + count)].reduce(0) { ($0 << 8) | Int($1) }
            contentStart += count
        }
        guard length <= limit - contentStart else { return nil }
        return Element(tag: tag, start: offset, content: contentStart..<(contentStart + length))
    }

    /// `tag`, the DER length of `content` (shortest form), then `content`.
    private static func encode(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [tag]
        if content.count < 0x80 {
            output.append(UInt8(content.count))
        } else {
            var length = content.count
            var digits: [UInt8] = []
            while length > 0 {
                digits.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            output.append(0x80 | UInt8(digits.count))
            output += digits
        }
        return output + content
    }
}
