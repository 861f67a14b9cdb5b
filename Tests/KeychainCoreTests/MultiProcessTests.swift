import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Several processes on one keychain, and a writer killed in mid-stream.
@Suite("Processes", .serialized)
struct MultiProcessTests {
    /// Runs `workers` mixed workers at once on one new keychain and checks every worker's final state.
    private func mixedRun(workers: Int, operations: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.keychain.path
        let started = try (0..<workers).map { worker in
            try StressProcess.start([
                "mixed", path, "\(worker)", "\(operations)", "\(UInt64.random(in: 1...UInt64.max))",
            ])
        }
        var finals: [String: String] = [:]
        for (process, output, errors) in started {
            let lines = StressProcess.completeLines(output.fileHandleForReading.readDataToEndOfFile())
            let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(problems)")
            for line in lines where line.hasPrefix("final ") {
                let parts = line.split(separator: " ").map(String.init)
                finals[parts[1]] = parts[2]
            }
        }
        #expect(finals.count == workers * 40)
        let engine = try Engine(storage: .directory(directory.keychain))
        #expect(try engine.integrityCheck() == "ok")
        for (account, value) in finals {
            #expect(try engine.stressSecret(account) == (value == "-" ? nil : value), "\(account)")
        }
        for shared in 0..<5 {
            if let value = try engine.stressSecret("shared-\(shared)") { #expect(value.hasPrefix("v")) }
        }
    }

    @Test("Two processes × 1,000 mixed adds, updates and deletes on one keychain: nothing lost")
    func twoProcesses() throws {
        try mixedRun(workers: 2, operations: 1000)
    }

    /// Starts a writer, kills it with SIGKILL after `acknowledged` acknowledged adds, and checks the survivors.
    private func killWriter(after acknowledged: Int, directory: TemporaryDirectory) throws {
        let (process, output, _) = try StressProcess.start(["writer", directory.keychain.path, "1000000"])
        var received = Data()
        while StressProcess.completeLines(received).count < acknowledged {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        received.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let acked = StressProcess.completeLines(received)
        #expect(acked.count >= acknowledged)
        let engine = try Engine(storage: .directory(directory.keychain))
        #expect(try engine.integrityCheck() == "ok")
        for index in acked {
            #expect(try engine.stressSecret("acked-\(index)") == "value-\(index)", "acknowledged add \(index) lost")
        }
    }

    @Test("A writer killed with SIGKILL mid-stream loses no acknowledged add, and the database is sound")
    func killedWriter() throws {
        try killWriter(after: 200, directory: try TemporaryDirectory())
    }

    @Test(
        "Soak: 4 processes × 5,000 operations, and 25 SIGKILLs at random points",
        .enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_SOAK"] != nil))
    func soak() throws {
        try mixedRun(workers: 4, operations: 5000)
        let directory = try TemporaryDirectory()
        for _ in 0..<25 {
            try killWriter(after: Int.random(in: 1...400), directory: directory)
            // The next writer starts over at index 0: clear the items so its adds are not duplicates.
            let engine = try Engine(storage: .directory(directory.keychain))
            _ = try? engine.delete(ItemQuery(itemClass: .genericPassword), for: stressCaller)
        }
    }
}
