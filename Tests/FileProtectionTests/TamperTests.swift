import FileProtection
import Foundation
import Testing

/// The layout of a protected file, for the tests that damage one on purpose.
private struct Layout {
    let headerCount: Int
    let sealedChunkCount: Int
    let data: Data

    init(_ data: Data, chunkByteCount: Int) {
        self.data = data
        let wrappedCount = Int(data[data.startIndex + 42]) | Int(data[data.startIndex + 43]) << 8
        headerCount = 44 + wrappedCount + 24 + 32
        sealedChunkCount = chunkByteCount + 17
    }

    var header: Data { data.prefix(headerCount) }
    var body: Data { data.dropFirst(headerCount) }

    /// The sealed chunks, in order.
    var chunks: [Data] {
        stride(from: headerCount, to: data.count, by: sealedChunkCount).map {
            data[$0..<min($0 + sealedChunkCount, data.count)]
        }
    }
}

@Suite("Tampering is detected and nothing of a bad file is returned")
struct TamperTests {
    private let chunk = 1024

    /// Writes `data` to `name` and returns the file's bytes.
    private func protectedBytes(
        _ fixture: FileFixture, _ name: String, _ data: Data, _ protection: FileProtectionClass = .none
    ) throws -> Data {
        try fixture.files.write(data, to: fixture.file(name), protection: protection)
        return try bytes(of: fixture.file(name))
    }

    /// Expects every way of reading `damaged` to fail with errSecDecode, returning nothing and creating nothing.
    private func expectRejected(
        _ damaged: Data, _ fixture: FileFixture, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let url = fixture.file("damaged")
        let output = fixture.file("output")
        try overwrite(url, with: damaged)
        let whole = error { _ = try fixture.files.contents(of: url) }
        #expect(whole?.status == FileProtectionError.decodeStatus, "\(what)", sourceLocation: sourceLocation)
        #expect(whole?.message.contains(url.path) == true, "\(what): names the file", sourceLocation: sourceLocation)
        #expect(
            status { try fixture.files.unprotect(contentsOf: url, to: output) } == FileProtectionError.decodeStatus,
            "\(what)", sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: output.path), "\(what): no output", sourceLocation: sourceLocation)
        #expect(
            status {
                let reader = try fixture.files.reader(from: url)
                _ = try reader.readToEnd()
            } == FileProtectionError.decodeStatus, "\(what): streaming", sourceLocation: sourceLocation)
        #expect(
            try fixture.entries().allSatisfy { !$0.hasSuffix(".tmp") }, "\(what): no temporary file",
            sourceLocation: sourceLocation)
    }

    @Test("Truncation anywhere: in the header, at every chunk boundary, inside a chunk, one byte short")
    func truncation() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let good = try protectedBytes(fixture, "good", sampleData(4 * chunk + 100))
        let layout = Layout(good, chunkByteCount: chunk)
        var cuts = [0, 3, 4, 20, 43, 44, 100, layout.headerCount - 1, layout.headerCount, good.count - 1]
        cuts += (1...4).map { layout.headerCount + $0 * layout.sealedChunkCount }
        cuts += (0...4).map { layout.headerCount + $0 * layout.sealedChunkCount + 17 }
        cuts += [layout.headerCount + layout.sealedChunkCount / 2, good.count - 17]
        for cut in Set(cuts).sorted() where cut < good.count {
            try expectRejected(good.prefix(cut), fixture, "cut at \(cut) of \(good.count)")
        }
        // An empty file written properly is one final chunk: cutting it is detected too.
        let empty = try protectedBytes(fixture, "empty", Data())
        try expectRejected(empty.prefix(empty.count - 17), fixture, "an empty file without its final chunk")
    }

    @Test("Reordered, dropped and repeated chunks, and data after the final chunk")
    func reordering() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let good = try protectedBytes(fixture, "good", sampleData(4 * chunk + 100))
        let layout = Layout(good, chunkByteCount: chunk)
        let chunks = layout.chunks
        #expect(chunks.count == 5)
        func assemble(_ order: [Int]) -> Data { layout.header + order.map { chunks[$0] }.reduce(Data(), +) }
        try expectRejected(assemble([1, 0, 2, 3, 4]), fixture, "first two swapped")
        try expectRejected(assemble([0, 2, 1, 3, 4]), fixture, "middle two swapped")
        try expectRejected(assemble([0, 1, 2, 4, 3]), fixture, "final chunk moved")
        try expectRejected(assemble([0, 1, 3, 4]), fixture, "a middle chunk dropped")
        try expectRejected(assemble([0, 1, 1, 2, 3, 4]), fixture, "a chunk repeated")
        try expectRejected(assemble([0, 1, 2, 3, 4, 4]), fixture, "the final chunk repeated")
        try expectRejected(good + Data([0]), fixture, "a byte after the final chunk")
        try expectRejected(good + good, fixture, "the file twice")
    }

    @Test("Splicing two files: a header on another body, chunks of one in the other, a foreign final chunk")
    func splicing() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let first = Layout(
            try protectedBytes(fixture, "first", sampleData(3 * chunk + 5, seed: 1)), chunkByteCount: chunk)
        let second = Layout(
            try protectedBytes(fixture, "second", sampleData(3 * chunk + 5, seed: 2)), chunkByteCount: chunk)
        try expectRejected(first.header + second.body, fixture, "first's header on second's body")
        try expectRejected(
            first.header + first.chunks[0] + second.chunks[1] + first.chunks[2] + first.chunks[3], fixture,
            "a chunk of another file in the middle")
        try expectRejected(
            first.header + first.chunks[0...2].reduce(Data(), +) + second.chunks[3], fixture,
            "another file's final chunk")
        try expectRejected(
            second.header.prefix(44) + first.header.dropFirst(44) + first.body, fixture,
            "another file's identifier and keybag fields")
    }

    @Test(
        "A flipped bit in any byte of a small file, of every class, is detected",
        arguments: FileProtectionClass.allCases)
    func flippedBytes(protection: FileProtectionClass) throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        // A header, one full chunk and a short final one: every kind of byte a file has.
        let good = try protectedBytes(fixture, "good", sampleData(chunk + 10), protection)
        let headerCount = Layout(good, chunkByteCount: chunk).headerCount
        let url = fixture.file("damaged")
        let output = fixture.file("output")
        for index in 0..<good.count {
            var damaged = good
            damaged[index] ^= UInt8(1 << (index % 8))
            try overwrite(url, with: damaged)
            #expect(
                status { _ = try fixture.files.contents(of: url) } == FileProtectionError.decodeStatus,
                "\(protection): byte \(index)")
            if index < headerCount {
                #expect(
                    status { _ = try fixture.files.protection(of: url) } == FileProtectionError.decodeStatus,
                    "\(protection): header byte \(index) is caught before the key is needed")
            }
            if index % 61 == 0 {
                #expect(
                    status { try fixture.files.unprotect(contentsOf: url, to: output) }
                        == FileProtectionError.decodeStatus)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("A changed class byte is caught by the header tag even while locked, before any key is needed")
    func classByteWhileLocked() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let good = try protectedBytes(fixture, "good", sampleData(chunk), .complete)
        fixture.engine.lock()
        for other: UInt8 in [2, 3, 4, 0, 9] {
            var damaged = good
            damaged[5] = other
            try expectRejected(damaged, fixture, "class byte \(other)")
        }
    }

    @Test("A file of another keychain, a plain file and an empty file are not protected files of this keychain")
    func foreignFiles() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let other = try FileFixture(chunkByteCount: chunk)
        let foreign = try protectedBytes(other, "foreign", sampleData(100), .none)
        try expectRejected(foreign, fixture, "another keychain's file")
        try overwrite(fixture.file("foreign"), with: foreign)
        #expect(
            error { _ = try fixture.files.protection(of: fixture.file("foreign")) }?.message.contains(
                "another keychain") == true)
        try expectRejected(
            Data("just some text that is long enough to fill a header, or nearly".utf8), fixture, "plain")
        try expectRejected(Data(), fixture, "empty")
        try expectRejected(Data("SKPF".utf8), fixture, "magic only")
        let plain = fixture.file("plain.txt")
        try Data("hello".utf8).write(to: plain)
        #expect(error { _ = try fixture.files.protection(of: plain) }?.message.contains("not a protected file") == true)
    }

    @Test("Unprotecting a damaged file leaves an existing output as it was")
    func unprotectKeepsExistingOutput() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let good = try protectedBytes(fixture, "good", sampleData(3 * chunk))
        let damaged = fixture.file("damaged")
        try good.prefix(good.count - 1).write(to: damaged)
        let output = fixture.file("output")
        try Data("previous".utf8).write(to: output)
        #expect(
            status { try fixture.files.unprotect(contentsOf: damaged, to: output) } == FileProtectionError.decodeStatus)
        #expect(try bytes(of: output) == Data("previous".utf8))
    }
}
