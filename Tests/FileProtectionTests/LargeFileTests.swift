import Foundation
import TestSupport
import Testing

/// A large file streamed through a writer, a reader and `unprotect` by `keychain-stress stream-file`, a small
/// process of its own (built beside this test bundle), whose peak resident set must stay under 32 MiB.
///
/// `make test` streams 64 MiB; `make files-soak` (FILE_PROTECTION_SOAK=1) streams 1 GiB.
@Suite("Large files stream in constant memory")
struct LargeFileTests {
    static let peakLimitKiB = 32 * 1024

    @Test("A large file is written, read and unprotected in a child process with peak RSS under 32 MiB")
    func constantMemory() throws {
        let soak = ProcessInfo.processInfo.environment["FILE_PROTECTION_SOAK"] != nil
        let size = soak ? 1 << 30 : 64 << 20
        let directory = try TemporaryDirectory()
        let (status, report, problems) = try StressProcess.run(["stream-file", directory.url.path, String(size)])
        #expect(status == 0, "the child streamed and verified every byte: \(problems)")
        let fields = report.split(separator: " ").reduce(into: [:]) { (fields: inout [String: Int], field) in
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
                + "\(opened) KiB with the keychain open)")
    }
}
