import FileProtection
import Foundation
import Testing

@Suite("Streaming handles and the lock")
struct OpenHandleTests {
    private let chunk = 4096

    @Test("A CompleteUnlessOpen reader opened while unlocked keeps reading after a lock; a new one cannot open")
    func completeUnlessOpenReaderSurvivesLock() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let url = fixture.file("b")
        let data = sampleData(10 * chunk + 123)
        try fixture.files.write(data, to: url, protection: .completeUnlessOpen)
        let reader = try fixture.files.reader(from: url)
        var read = try #require(try reader.read(upToCount: 3 * chunk + 7))
        fixture.engine.lock()
        #expect(try fixture.engine.keybagStatus().isLocked)
        while let more = try reader.read(upToCount: 5000) { read.append(more) }
        #expect(read == data, "the handle read the whole file after the lock")
        #expect(status { _ = try fixture.files.reader(from: url) } == FileProtectionError.lockedStatus)
        #expect(status { _ = try fixture.files.contents(of: url) } == FileProtectionError.lockedStatus)
    }

    @Test("A CompleteUnlessOpen file is created and written while locked, and readable only after an unlock")
    func completeUnlessOpenWriterWhileLocked() throws {
        let fixture = try FileFixture(.beforeFirstUnlock, chunkByteCount: chunk)
        let url = fixture.file("b")
        let data = sampleData(7 * chunk)
        let writer = try fixture.files.writer(to: url, protection: .completeUnlessOpen)
        try writer.write(contentsOf: data.prefix(100))
        try writer.write(contentsOf: data.dropFirst(100))
        #expect(!FileManager.default.fileExists(atPath: url.path), "the file appears only once closed")
        try writer.close()
        #expect(status { _ = try fixture.files.contents(of: url) } == FileProtectionError.lockedStatus)
        try fixture.engine.unlock(passcode: FileFixture.passcode)
        #expect(try fixture.files.contents(of: url) == data)
    }

    @Test("A CompleteUnlessOpen writer opened while unlocked keeps writing after a lock")
    func completeUnlessOpenWriterSurvivesLock() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let url = fixture.file("b")
        let data = sampleData(5 * chunk + 1)
        let writer = try fixture.files.writer(to: url, protection: .completeUnlessOpen)
        try writer.write(contentsOf: data.prefix(2 * chunk))
        fixture.engine.lock()
        try writer.write(contentsOf: data.dropFirst(2 * chunk))
        try writer.close()
        try fixture.engine.unlock(passcode: FileFixture.passcode)
        #expect(try fixture.files.contents(of: url) == data)
    }

    @Test("A Complete reader refuses to read while locked and goes on after an unlock")
    func completeReaderPausesWhileLocked() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let url = fixture.file("a")
        let data = sampleData(6 * chunk + 5)
        try fixture.files.write(data, to: url, protection: .complete)
        let reader = try fixture.files.reader(from: url)
        var read = try #require(try reader.read(upToCount: chunk + 1))
        fixture.engine.lock()
        #expect(status { _ = try reader.read(upToCount: 10) } == FileProtectionError.lockedStatus)
        #expect(status { _ = try reader.read(upToCount: 10) } == FileProtectionError.lockedStatus)
        try fixture.engine.unlock(passcode: FileFixture.passcode)
        read.append(try reader.readToEnd())
        #expect(read == data, "nothing was lost or repeated across the lock")
    }

    @Test("A Complete writer refuses to write while locked, leaves the file as it was, and goes on after an unlock")
    func completeWriterPausesWhileLocked() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let url = fixture.file("a")
        try fixture.files.write(Data("old".utf8), to: url, protection: .complete)
        let before = try bytes(of: url)
        let data = sampleData(4 * chunk + 9)
        let writer = try fixture.files.writer(to: url, protection: .complete)
        try writer.write(contentsOf: data.prefix(chunk + 3))
        fixture.engine.lock()
        #expect(status { try writer.write(contentsOf: data.dropFirst(chunk + 3)) } == FileProtectionError.lockedStatus)
        #expect(status { try writer.close() } == FileProtectionError.lockedStatus)
        #expect(try bytes(of: url) == before)
        try fixture.engine.unlock(passcode: FileFixture.passcode)
        try writer.write(contentsOf: data.dropFirst(chunk + 3))
        try writer.close()
        #expect(try fixture.files.contents(of: url) == data)
    }

    @Test("A writer dropped without close, or after a failure, leaves the destination as it was and no trace")
    func abandonedWriter() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let url = fixture.file("f")
        try fixture.files.write(Data("keep me".utf8), to: url, protection: .none)
        let before = try bytes(of: url)
        do {
            let writer = try fixture.files.writer(to: url, protection: .complete)
            try writer.write(contentsOf: sampleData(3 * chunk))
            #expect(try fixture.entries() == ["f"], "the file being written has no name (O_TMPFILE)")
        }
        #expect(try bytes(of: url) == before)
        #expect(try fixture.entries() == ["f"])
    }

    @Test("Handles report misuse: reading a closed reader, writing a closed writer, reading zero bytes")
    func misuse() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        let url = fixture.file("f")
        let writer = try fixture.files.writer(to: url, protection: .none)
        try writer.write(contentsOf: Data("x".utf8))
        try writer.close()
        try writer.close()
        #expect(status { try writer.write(contentsOf: Data("y".utf8)) } == FileProtectionError.param.status)
        let reader = try fixture.files.reader(from: url)
        #expect(reader.protection == .none)
        #expect(status { _ = try reader.read(upToCount: 0) } == FileProtectionError.param.status)
        #expect(
            status { _ = try reader.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) }
                == FileProtectionError.param.status)
        reader.close()
        #expect(status { _ = try reader.read(upToCount: 1) } == FileProtectionError.param.status)
    }

    @Test("Reads of every size return the same bytes, and the end is signalled only after the final chunk")
    func readSizes() throws {
        let fixture = try FileFixture(chunkByteCount: chunk)
        for size in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, 3 * chunk + 17] {
            let url = fixture.file("f\(size)")
            let data = sampleData(size)
            try fixture.files.write(data, to: url, protection: .none)
            for readSize in [1, 7, chunk, 2 * chunk + 3] {
                let reader = try fixture.files.reader(from: url)
                var read = Data()
                while let piece = try reader.read(upToCount: readSize) {
                    #expect(piece.count <= readSize)
                    read.append(piece)
                }
                #expect(read == data, "size \(size), reads of \(readSize)")
                #expect(try reader.read(upToCount: 1) == nil)
            }
        }
    }
}
