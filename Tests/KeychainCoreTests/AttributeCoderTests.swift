import Foundation
import Testing

@testable import KeychainCore

@Suite("Attribute coding")
struct AttributeCoderTests {
    @Test("Every kind of value survives encoding")
    func roundTrip() throws {
        let attributes: ItemAttributes = [
            .account: .string("älice ✓"), .generic: .data(Data([0, 1, 2, 255])), .port: .integer(443),
            .creationDate: .date(Date(timeIntervalSinceReferenceDate: 12345.678)), .isInvisible: .bool(true),
            .label: .string(""),
        ]
        #expect(try AttributeCoder.decode(Data(AttributeCoder.encode(attributes))) == attributes)
    }

    @Test("Malformed metadata is a decode error, never a crash")
    func malformed() throws {
        let valid = AttributeCoder.encode([.account: .string("alice"), .port: .integer(1)])
        // Cutting between attributes leaves a shorter valid set; anywhere else is a decode error.
        let boundaries = [1, AttributeCoder.encode([.account: .string("alice")]).count]
        for length in 0..<valid.count where !boundaries.contains(length) {
            #expect(status { _ = try AttributeCoder.decode(Data(valid.prefix(length))) } == .decode)
        }
        var wrongKind = valid
        wrongKind[5] = 3  // acct tagged as an integer
        #expect(status { _ = try AttributeCoder.decode(Data(wrongKind)) } == .decode)
        var unknownKey = valid
        unknownKey[1] = UInt8(ascii: "z")
        #expect(status { _ = try AttributeCoder.decode(Data(unknownKey)) } == .decode)
        #expect(status { _ = try AttributeCoder.decode(Data([2])) } == .decode)
        let huge = Data([1] + Array("acct".utf8) + [1, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(status { _ = try AttributeCoder.decode(huge) } == .decode)
    }

    @Test("Storage slots follow name order, one per attribute")
    func slots() {
        #expect(AttributeKey.allCases.map(\.slot).sorted() == Array(0..<AttributeKey.allCases.count))
        for key in AttributeKey.allCases { #expect(AttributeKey.byName[key.slot] == key) }
        let attributes: ItemAttributes = [.type: .integer(1), .account: .string("a"), .port: .integer(2)]
        #expect(attributes.map(\.key) == [.account, .port, .type])
    }

    @Test("Random bytes never crash the decoder")
    func randomBytes() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = 1 }
            _ = try? AttributeCoder.decode(Data(bytes))
        }
    }
}
