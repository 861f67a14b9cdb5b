import Foundation
import TestSupport
import Testing

@testable import security_tool

#if canImport(Glibc)
    import Glibc
#endif

/// The buffers under items 1 and 10: ZeroingBuffer keeps bytes in order through growth and compaction, and
/// StandardInput returns lines whole or refuses them whole, at the limit's exact edge.
@Suite("Reliability 1 and 10: the zeroing buffer and standard input's lines")
struct InputBufferUnitTests {
    @Test("Reliability 10: ZeroingBuffer keeps its bytes in order through appends, removals, growth and compaction")
    func zeroingBufferOrder() {
        var generator = SystemRandomNumberGenerator()
        let buffer = ZeroingBuffer(capacity: 16)
        var reference: [UInt8] = []
        for step in 0..<2000 {
            if Bool.random(using: &generator) || reference.isEmpty {
                let bytes = (0..<Int.random(in: 0...300, using: &generator)).map {
                    UInt8(truncatingIfNeeded: $0 &+ step)
                }
                if step % 3 == 0 {
                    bytes.withUnsafeBytes { buffer.append($0) }
                } else if step % 3 == 1 {
                    buffer.append(contentsOf: bytes)
                } else {
                    let room = buffer.freeSpace(atLeast: bytes.count)
                    room.copyBytes(from: bytes)
                    buffer.didAppend(bytes.count)
                }
                reference += bytes
            } else {
                let count = Int.random(in: 0...reference.count, using: &generator)
                buffer.removeFirst(count)
                reference.removeFirst(count)
            }
            #expect(Array(buffer.bytes) == reference, "after step \(step)")
            if Array(buffer.bytes) != reference { return }
        }
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.count == 0)
    }

    /// Standard input read from a pipe holding `bytes` (written by a thread, so any size fits), and the pipe, kept
    /// open as long as the input is read.
    private func input(_ bytes: [UInt8]) throws -> (StandardInput, ChildPipe) {
        let pipe = try ChildPipe()
        Thread { pipe.writeAll(bytes) }.start()
        return (StandardInput(descriptor: pipe.reading), pipe)
    }

    private func text(_ line: StandardInput.Line?) -> String {
        switch line {
        case nil: "end"
        case .line(let bytes): "line \(String(decoding: bytes, as: UTF8.self))"
        case .tooLong(let count): "too long \(count)"
        }
    }

    @Test(
        "Reliability 1: a line of exactly the limit is whole, one byte more is refused whole, the next line is intact")
    func limitEdge() throws {
        let limit = 100_000
        let exact = [UInt8](repeating: UInt8(ascii: "a"), count: limit)
        let over = [UInt8](repeating: UInt8(ascii: "b"), count: limit + 1)
        let (input, pipe) = try input(exact + [10] + over + Array("\nnext\nlast".utf8))
        #expect(text(input.readLine(limit: limit)) == "line " + String(repeating: "a", count: limit))
        #expect(text(input.readLine(limit: limit)) == "too long \(limit + 1)")
        #expect(text(input.readLine(limit: limit)) == "line next")
        #expect(text(input.readLine(limit: limit)) == "line last")
        #expect(text(input.readLine(limit: limit)) == "end")
        pipe.closeReading()
    }

    @Test("Reliability 1: a too-long last line without a newline is refused whole, then the input ends")
    func tooLongAtEnd() throws {
        let (input, pipe) = try input(Array("short\n".utf8) + [UInt8](repeating: 65, count: 300_000))
        #expect(text(input.readLine(limit: 1000)) == "line short")
        #expect(text(input.readLine(limit: 1000)) == "too long 300000")
        #expect(text(input.readLine(limit: 1000)) == "end")
        pipe.closeReading()
    }

    @Test("Reliability 1: many short lines in one read come back one by one, and empty lines stay lines")
    func manyLines() throws {
        let lines = (0..<20_000).map { "line \($0)" } + ["", "after empty"]
        let (input, pipe) = try input(Array((lines.joined(separator: "\n") + "\n").utf8))
        for line in lines {
            #expect(text(input.readLine(limit: 64)) == "line " + line)
        }
        #expect(text(input.readLine(limit: 64)) == "end")
        pipe.closeReading()
    }
}
