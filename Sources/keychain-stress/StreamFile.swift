import FileProtection
import Foundation
import KeychainCore

/// `keychain-stress stream-file DIR BYTES`: streams a protected file of BYTES through a writer, a reader (which
/// keeps reading after a lock: CompleteUnlessOpen) and `unprotect`, checks every byte, and prints this process's
/// peak resident set. A small process of its own, so the figure is the streaming's and not a test runner's.
func runStreamFile(directory: URL, size: Int) throws {
    let baseline = peakResidentKiB()
    let engine = try Engine(
        storage: .directory(directory.appendingPathComponent("keychain")),
        options: EngineOptions(passcodeCost: .minimum))
    try engine.setPasscode("1234", current: nil)
    let files = ProtectedFiles(backend: engine)
    let protected = directory.appendingPathComponent("large")
    let plain = directory.appendingPathComponent("plain")
    let pattern = StreamPattern()
    let opened = peakResidentKiB()

    let writer = try files.writer(to: protected, protection: .completeUnlessOpen)
    var written = 0
    while written < size {
        let count = min(StreamPattern.blockByteCount, size - written)
        try writer.write(contentsOf: pattern.block(written / StreamPattern.blockByteCount).prefix(count))
        written += count
    }
    try writer.close()

    let reader = try files.reader(from: protected)
    engine.lock()
    var verified = try pattern.verify(size: size) { buffer in try reader.read(into: buffer) }
    try engine.unlock(passcode: "1234")
    try files.unprotect(contentsOf: protected, to: plain)
    try FileManager.default.removeItem(at: protected)
    let source = try FileHandle(forReadingFrom: plain)
    verified += try pattern.verify(size: size) { buffer in
        let data = try source.read(upToCount: buffer.count) ?? Data()
        data.copyBytes(to: buffer)
        return data.count
    }
    try source.close()
    say("peak_kib=\(peakResidentKiB()) baseline_kib=\(baseline) opened_kib=\(opened) verified_bytes=\(verified)")
}

/// This process's peak resident set (VmHWM), in KiB.
private func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return line.split(separator: " ").compactMap { Int($0) }.first ?? -1
}

/// Large-file test data without a large buffer: one random 64 KiB block, each copy stamped with its index.
private struct StreamPattern {
    static let blockByteCount = 64 << 10
    private let base: Data

    init() {
        base = Data((0..<Self.blockByteCount).map { _ in UInt8.random(in: 0...255) })
    }

    func block(_ index: Int) -> Data {
        var block = base
        withUnsafeBytes(of: UInt64(index).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
        return block
    }

    /// Reads `size` bytes through `read` (fills a buffer, returns the count, 0 at the end), checks each against the
    /// pattern and that nothing follows; returns how many bytes were checked.
    func verify(size: Int, _ read: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Int {
        var buffer = Data(count: Self.blockByteCount)
        var checked = 0
        while checked < size {
            let expected = block(checked / Self.blockByteCount).prefix(min(Self.blockByteCount, size - checked))
            var filled = 0
            while filled < expected.count {
                let count = try buffer.withUnsafeMutableBytes { bytes in
                    try read(UnsafeMutableRawBufferPointer(rebasing: bytes[filled..<expected.count]))
                }
                guard count > 0 else { break }
                filled += count
            }
            guard filled == expected.count else { fail("the stream ended early at \(checked + filled) of \(size)") }
            guard buffer.prefix(filled) == expected else { fail("the bytes at \(checked) differ") }
            checked += filled
        }
        var extra = Data(count: 1)
        guard try extra.withUnsafeMutableBytes({ try read($0) }) == 0 else {
            fail("the stream goes on after \(size) bytes")
        }
        return checked
    }
}
