import Foundation
import Testing

@testable import KeychainKeys

/// Apple's normalization of X.501 names, on names built byte by byte.
@Suite("Distinguished names normalized as Apple's keychain compares them")
struct DistinguishedNameTests {
    /// `tag`, a short length, `content`.
    private func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }

    /// One RDN of one attribute (organization, 2.5.4.10) whose value has `tag`.
    private func name(_ values: [(UInt8, String)]) -> Data {
        let organization: [UInt8] = [0x06, 0x03, 0x55, 0x04, 0x0A]
        let rdns = values.flatMap { tag, text in tlv(0x31, tlv(0x30, organization + tlv(tag, Array(text.utf8)))) }
        return Data(tlv(0x30, rdns))
    }

    @Test("PrintableString: upper-cased, blanks collapsed and trimmed; other strings byte for byte")
    func normalization() {
        #expect(
            DistinguishedName.normalizedSequence(of: name([(0x13, "  acme \t corp  ")]))
                == name([(0x13, "ACME CORP")]))
        #expect(
            DistinguishedName.normalizedSequence(of: name([(0x0C, "  acme corp ")])) == name([(0x0C, "  acme corp ")]))
        let two = name([(0x13, "a  b"), (0x0C, "Ünï")])
        #expect(DistinguishedName.normalizedSequence(of: two) == name([(0x13, "A B"), (0x0C, "Ünï")]))
        // The content is the sequence without its tag and length.
        #expect(
            DistinguishedName.normalizedContent(of: two).map { Data([0x30, UInt8($0.count)]) + $0 }
                == DistinguishedName.normalizedSequence(of: two))
        // Normalizing twice changes nothing.
        let once = DistinguishedName.normalizedSequence(of: name([(0x13, " x  y ")]))
        #expect(once.flatMap(DistinguishedName.normalizedSequence(of:)) == once)
    }

    @Test("Malformed names are refused: empty RDN, a length past the end, trailing bytes, not a SEQUENCE")
    func malformed() {
        let good = [UInt8](name([(0x13, "x")]))
        var long = good
        long[1] = 0x7F
        let refused: [[UInt8]] = [
            [0x30, 0x02, 0x31, 0x00], long, good + [0], [0x31] + good.dropFirst(),
            [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x30, 0x05, 0x31, 0x03, 0x30, 0x01, 0x06],
        ]
        for bytes in refused {
            #expect(DistinguishedName.normalizedContent(of: Data(bytes)) == nil, "\(bytes)")
        }
    }
}
