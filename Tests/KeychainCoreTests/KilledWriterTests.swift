import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writers of mixed adds, updates, deletes and batches killed with SIGKILL at random points, one after another on
/// one keychain: after each kill, every acknowledged write is there, exactly, and the keychain verifies.
@Suite("Killed writers", .serialized)
struct KilledWriterTests {
    /// One write as the worker announced it.
    private enum Write {
        case set(String, String)
        case delete(String)
        case batch([(String, String)])

        init?(_ line: Substring) {
            let words = line.split(separator: " ").map(String.init)
            switch (words.first, words.count) {
            case ("set", 3): self = .set(words[1], words[2])
            case ("delete", 2): self = .delete(words[1])
            case ("batch", 2):
                self = .batch(
                    words[1].split(separator: ",").map { pair in
                        let parts = pair.split(separator: "=").map(String.init)
                        return (parts[0], parts.count > 1 ? parts[1] : "")
                    })
            default: return nil
            }
        }

        /// What the keys hold once the write is done.
        var effects: [(String, String?)] {
            switch self {
            case .set(let key, let value): [(key, value)]
            case .delete(let key): [(key, nil)]
            case .batch(let pairs): pairs.map { ($0.0, $0.1) }
            }
        }
    }

    /// Runs `trials` killed writers on one keychain and checks the keychain after each.
    private func killedWriters(trials: Int) throws {
        let directory = try TemporaryDirectory()
        var model: [String: String] = [:]
        var acknowledgedWrites = 0
        for trial in 0..<trials {
            let (process, output, errors) = try StressProcess.start([
                "acknowledged", directory.keychain.path, "\(UInt64.random(in: 1...UInt64.max))",
            ])
            let target = Int.random(in: 1...40)
            var received = Data()
            while StressProcess.completeLines(received).filter({ $0 == "A" || $0 == "N" }).count < target {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                received.append(chunk)
            }
            kill(process.processIdentifier, SIGKILL)
            received.append(output.fileHandleForReading.readDataToEndOfFile())
            let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(problems.isEmpty, "trial \(trial): \(problems)")

            var inFlight: Write?
            for line in StressProcess.completeLines(received) {
                if line == "A", let write = inFlight {
                    for (key, value) in write.effects { model[key] = value }
                    acknowledgedWrites += 1
                    inFlight = nil
                } else if line == "N" {
                    acknowledgedWrites += 1  // a batch refused whole: it changed nothing
                    inFlight = nil
                } else if line.hasPrefix("B ") {
                    inFlight = Write(line.dropFirst(2))
                }
            }
            let engine = try Engine(storage: .directory(directory.keychain))
            #expect(try engine.integrityCheck() == "ok", "trial \(trial)")
            let report = try engine.verify()
            #expect(report.isSound, "trial \(trial): \(report)")
            // The write in flight when the kill came may or may not have landed, all of it or none.
            if let write = inFlight {
                let landed = try write.effects.allSatisfy { key, value in try engine.stressSecret(key) == value }
                if landed { for (key, value) in write.effects { model[key] = value } }
            }
            var keys = Set(model.keys)
            keys.formUnion((0..<50).map { "k\($0)" })
            keys.formUnion((0..<30).flatMap { pool in (0..<3).map { "b\(pool)-\($0)" } })
            for key in keys {
                let found = try engine.stressSecret(key)
                #expect(
                    found == model[key],
                    "trial \(trial): \(key) is \(found ?? "missing"), not \(model[key] ?? "missing")")
                if found != model[key] { return }
            }
        }
        #expect(acknowledgedWrites >= trials)
    }

    @Test("Reliability: 20 writers killed with SIGKILL lose no acknowledged write")
    func killedWritersLoseNothing() throws {
        try killedWriters(trials: 20)
    }

    @Test(
        "Soak: 1,000 writers of mixed writes killed with SIGKILL: 0 acknowledged writes lost, exact read-back",
        .enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_SOAK"] != nil))
    func killedWritersSoak() throws {
        try killedWriters(trials: Int(ProcessInfo.processInfo.environment["KEYCHAIN_SOAK_KILLS"] ?? "") ?? 1000)
    }
}
