import FileProtection
import Foundation
import Testing

@Suite("Progress of protect and unprotect, and the plaintext size a reader knows before reading")
struct ProgressTests {
    private let chunk = 4096

    @Test(
        "A reader's plaintext size is exact for empty, short, whole-chunk and many-chunk files",
        arguments: [0, 1, 4095, 4096, 4097, 3 * 4096 + 5])
    func plaintextSize(count: Int) throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let url = fixture.file("f")
        try fixture.files.write(sampleData(count), to: url, protection: .complete)
        #expect(try fixture.files.reader(from: url).plaintextByteCount == Int64(count))
    }

    @Test("Protect and unprotect report every chunk, ending at the total, which they knew from the start")
    func progressReported() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: chunk)
        let plain = fixture.file("plain")
        let data = sampleData(5 * chunk + 17)
        try data.write(to: plain)
        var protectSteps: [(Int64, Int64)] = []
        try fixture.files.protect(contentsOf: plain, to: fixture.file("p"), protection: .complete) {
            protectSteps.append(($0, $1))
        }
        var unprotectSteps: [(Int64, Int64)] = []
        try fixture.files.unprotect(contentsOf: fixture.file("p"), to: fixture.file("back")) {
            unprotectSteps.append(($0, $1))
        }
        for steps in [protectSteps, unprotectSteps] {
            #expect(steps.count >= 2)
            #expect(steps.allSatisfy { $0.1 == Int64(data.count) }, "the total changed: \(steps)")
            #expect(steps.last?.0 == Int64(data.count))
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.0 < $1.0 }, "not increasing: \(steps)")
        }
        #expect(try Data(contentsOf: fixture.file("back")) == data)
    }
}
