import FileProtection
import Foundation
import Testing

/// A large file streamed through a writer, a reader and `unprotect` in a child process (this test binary again,
/// running only ``LargeFileTests/streamInChild()``), whose peak resident set must stay under 32 MiB.
///
/// `make test` streams 64 MiB; `make files-soak` (FILE_PROTECTION_SOAK=1) streams 1 GiB.
@Suite("Large files stream in constant memory")
struct LargeFileTests {
    static let sizeVariable = "FILE_PROTECTION_STREAM_BYTES"
    static let reportVariable = "FILE_PROTECTION_STREAM_REPORT"
    static let peakLimitKiB = 32 * 1024

    @Test("A large file is written, read and unprotected in a child process with peak RSS under 32 MiB")
    func constantMemory() throws {
        let soak = ProcessInfo.processInfo.environment["FILE_PROTECTION_SOAK"] != nil
        let size = soak ? 1 << 30 : 64 << 20
        let directory = try TemporaryDirectory()
        let report = directory.file("report")
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "LargeFileTests/streamInChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.sizeVariable] = String(size)
        environment[Self.reportVariable] = report.path
        environment["SWIFT_BACKTRACE"] = "enable=no"
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0, "the child streamed and verified every byte")
        let fields = try String(contentsOf: report, encoding: .utf8).split(separator: " ").reduce(into: [:]) {
            (fields: inout [String: Int], field) in
            let parts = field.split(separator: "=")
            if parts.count == 2 {
                fields[String(parts[0])] = Int(parts[1].trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        let peak = try #require(fields["peak_kib"])
        #expect(fields["verified_bytes"] == 2 * size)
        #expect(peak < Self.peakLimitKiB, "peak RSS \(peak) KiB streaming \(size >> 20) MiB")
        // The streams themselves hold a few chunks: what streaming adds to a process with the keychain open.
        let opened = try #require(fields["opened_kib"])
        #expect(peak - opened < 4096, "streaming \(size >> 20) MiB added \(peak - opened) KiB")
        print(
            "streamed \(size >> 20) MiB: child peak RSS \(peak) KiB (\(fields["baseline_kib"] ?? 0) KiB at start, "
                + "\(fields["opened_kib"] ?? 0) KiB with the keychain open)")
    }

    @Test(
        "The child: stream a file of FILE_PROTECTION_STREAM_BYTES through every streaming path and report VmHWM",
        .enabled(if: ProcessInfo.processInfo.environment[sizeVariable] != nil))
    func streamInChild() throws {
        let environment = ProcessInfo.processInfo.environment
        let size = try #require(environment[Self.sizeVariable].flatMap { Int($0) })
        let report = try #require(environment[Self.reportVariable])
        let baseline = peakResidentKiB()
        let fixture = try FileFixture(.unlocked)
        let url = fixture.file("large")
        let pattern = Pattern()
        let opened = peakResidentKiB()
        let writer = try fixture.files.writer(to: url, protection: .completeUnlessOpen)
        var written = 0
        while written < size {
            let count = min(Pattern.blockByteCount, size - written)
            try writer.write(contentsOf: pattern.block(written / Pattern.blockByteCount).prefix(count))
            written += count
        }
        try writer.close()
        // The reader keeps going after a lock: CompleteUnlessOpen.
        let reader = try fixture.files.reader(from: url)
        fixture.engine.lock()
        var verified = try pattern.verify(size: size) { buffer in try reader.read(into: buffer) }
        try fixture.engine.unlock(passcode: FileFixture.passcode)
        let plain = fixture.file("plain")
        try fixture.files.unprotect(contentsOf: url, to: plain)
        try FileManager.default.removeItem(at: url)
        let source = try FileHandle(forReadingFrom: plain)
        verified += try pattern.verify(size: size) { buffer in
            let data = try source.read(upToCount: buffer.count) ?? Data()
            data.copyBytes(to: buffer)
            return data.count
        }
        try source.close()
        let line =
            "peak_kib=\(peakResidentKiB()) baseline_kib=\(baseline) opened_kib=\(opened) verified_bytes=\(verified)\n"
        try Data(line.utf8).write(to: URL(fileURLWithPath: report))
    }

    /// This process's peak resident set (VmHWM), in KiB.
    private func peakResidentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return line.split(separator: " ").compactMap { Int($0) }.first ?? -1
    }
}

/// Test data for large files without a large buffer: one random 64 KiB block, each copy stamped with its index.
private struct Pattern {
    static let blockByteCount = 64 << 10
    private let base: Data

    init() {
        var generator = SystemRandomNumberGenerator()
        base = Data((0..<Self.blockByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Block `index`.
    func block(_ index: Int) -> Data {
        var block = base
        withUnsafeBytes(of: UInt64(index).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
        return block
    }

    /// Reads `size` bytes through `read` (which fills a buffer and returns the count, 0 at the end) and checks
    /// each against the pattern; returns how many bytes were checked.
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
            try #require(filled == expected.count, "the stream ended early at \(checked + filled) of \(size)")
            try #require(buffer.prefix(filled) == expected, "the bytes at \(checked) differ")
            checked += filled
        }
        var extra = Data(count: 1)
        try #require(try extra.withUnsafeMutableBytes { try read($0) } == 0, "the stream goes on after \(size) bytes")
        return checked
    }
}
