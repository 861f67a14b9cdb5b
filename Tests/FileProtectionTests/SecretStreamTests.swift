import Foundation
import KeychainCore
import Testing

@Suite("SecretStream: libsodium's secretstream in KeychainCore")
struct SecretStreamTests {
    /// Seals `messages` (the last one final) and returns the header and the sealed messages.
    private func seal(_ messages: [[UInt8]], key: SecretKey, firstAD: [UInt8] = []) throws -> ([UInt8], [[UInt8]]) {
        let sealer = try SecretStream.Sealer(key: key)
        var sealed: [[UInt8]] = []
        for (index, message) in messages.enumerated() {
            var output = [UInt8](repeating: 0, count: message.count + SecretStream.overhead)
            let count = try message.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { buffer in
                    try sealer.seal(
                        input, associatedData: index == 0 ? firstAD : [], isFinal: index == messages.count - 1,
                        into: buffer)
                }
            }
            #expect(count == message.count + SecretStream.overhead)
            sealed.append(output)
        }
        #expect(sealer.isFinal)
        return (sealer.header, sealed)
    }

    /// Opens sealed messages; returns the plaintexts and whether the last was final, or the error.
    private func open(
        _ sealed: [[UInt8]], header: [UInt8], key: SecretKey, firstAD: [UInt8] = []
    ) throws -> ([[UInt8]], Bool) {
        let opener = try SecretStream.Opener(key: key, header: header)
        var opened: [[UInt8]] = []
        var isFinal = false
        for (index, message) in sealed.enumerated() {
            var output = [UInt8](repeating: 0, count: max(0, message.count - SecretStream.overhead))
            let result = try message.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { buffer in
                    try opener.open(input, associatedData: index == 0 ? firstAD : [], into: buffer)
                }
            }
            opened.append(Array(output.prefix(result.count)))
            isFinal = result.isFinal
        }
        return (opened, isFinal)
    }

    @Test("Messages round-trip in order and the last one is final; empty messages included")
    func roundTrip() throws {
        let key = try SecretKey.random()
        let messages: [[UInt8]] = [Array("one".utf8), [], Array(repeating: 7, count: 1000), Array("last".utf8)]
        let (header, sealed) = try seal(messages, key: key, firstAD: [1, 2, 3])
        #expect(header.count == SecretStream.headerByteCount)
        let (opened, isFinal) = try open(sealed, header: header, key: key, firstAD: [1, 2, 3])
        #expect(opened == messages)
        #expect(isFinal)
    }

    @Test("A wrong key, header, associated data, order or byte fails with errSecDecode")
    func tampering() throws {
        let key = try SecretKey.random()
        let messages: [[UInt8]] = [[1], [2], [3]]
        let (header, sealed) = try seal(messages, key: key, firstAD: [9])
        #expect(
            engineCode { _ = try open(sealed, header: header, key: try SecretKey.random(), firstAD: [9]) } == .decode)
        var otherHeader = header
        otherHeader[0] ^= 1
        #expect(engineCode { _ = try open(sealed, header: otherHeader, key: key, firstAD: [9]) } == .decode)
        #expect(engineCode { _ = try open(sealed, header: header, key: key, firstAD: [8]) } == .decode)
        #expect(
            engineCode { _ = try open([sealed[1], sealed[0], sealed[2]], header: header, key: key, firstAD: [9]) }
                == .decode)
        for index in 0..<sealed[1].count {
            var damaged = sealed
            damaged[1][index] ^= 0x80
            #expect(engineCode { _ = try open(damaged, header: header, key: key, firstAD: [9]) } == .decode)
        }
        #expect(
            engineCode { _ = try open([Array(sealed[0].prefix(5))], header: header, key: key, firstAD: [9]) } == .decode
        )
        #expect(engineCode { _ = try SecretStream.Opener(key: key, header: [1, 2, 3]) } == .decode)
    }

    @Test("A truncated stream opens without its final tag, and nothing follows a final message")
    func finality() throws {
        let key = try SecretKey.random()
        let (header, sealed) = try seal([[1], [2], [3]], key: key)
        let (_, isFinal) = try open(Array(sealed.prefix(2)), header: header, key: key)
        #expect(!isFinal, "the reader must treat a missing final tag as truncation")
        let (otherHeader, other) = try seal([[4], [5]], key: key)
        #expect(engineCode { _ = try open(sealed + [other[1]], header: header, key: key) } == .decode)
        #expect(engineCode { _ = try open(other + [sealed[0]], header: otherHeader, key: key) } == .decode)
        let sealer = try SecretStream.Sealer(key: key)
        var output = [UInt8](repeating: 0, count: 64)
        let message: [UInt8] = [1]
        try message.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { buffer in
                _ = try sealer.seal(input, isFinal: true, into: buffer)
                #expect(engineCode { _ = try sealer.seal(input, isFinal: false, into: buffer) } == .param)
                let fresh = try SecretStream.Sealer(key: key)
                let short = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<4])
                #expect(engineCode { _ = try fresh.seal(input, isFinal: false, into: short) } == .param)
            }
        }
    }
}
