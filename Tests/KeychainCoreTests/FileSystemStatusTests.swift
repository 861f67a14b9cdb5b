import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

@Suite("Reliability: file-system failures say what they are")
struct FileSystemStatusTests {
    private func open(_ url: URL) throws -> Engine {
        try Engine(storage: .directory(url), options: EngineOptions(passcodeCost: .minimum))
    }

    @Test(
        "Reliability 9: creating a keychain on a full disk is errSecDiskFull and leaves nothing behind",
        .enabled(if: TemporaryMount.isPermitted, "skipped: needs root to mount a small tmpfs"))
    func fullDisk() throws {
        for size in ["12k", "40k", "60k"] {
            let mount = try #require(try TemporaryMount(size: size))
            let url = mount.url.appendingPathComponent("keychain")
            do {
                _ = try open(url)
                Issue.record("a keychain was created on a \(size) file system")
            } catch let error as EngineError {
                #expect(error.code == .diskFull, "\(size): \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: url.path), "\(size): the directory it made goes too")
            #expect(!KeychainBackends.keychainExists(in: url))
        }
        // With room enough the same steps work.
        let roomy = try #require(try TemporaryMount(size: "1m"))
        try open(roomy.url.appendingPathComponent("keychain")).addPassword("a", "1")
    }

    @Test(
        "Reliability 9: a read-only keychain is read as usual; a write says read-only, not 'cannot create'",
        .enabled(if: TemporaryMount.isPermitted, "skipped: needs root to mount a tmpfs and remount it read-only"))
    func readOnly() throws {
        let mount = try #require(try TemporaryMount(size: "1m"))
        let url = mount.url.appendingPathComponent("keychain")
        try open(url).addPassword("a", "1")
        try #require(mount.remountReadOnly())
        let engine = try open(url)
        #expect(try engine.password("a") == "1")
        do {
            try engine.addPassword("b", "2")
            Issue.record("a read-only keychain took a write")
        } catch let error as EngineError {
            #expect(error.code == .writePermission, "\(error)")
            #expect(error.message.contains("read-only"), "\(error)")
        }
    }
}

@Suite("Reliability: creating a keychain")
struct KeychainCreationTests {
    @Test("Reliability 9: six processes creating one keychain at once all use the same one, and leave no staging files")
    func concurrentCreation() throws {
        let directory = try TemporaryDirectory()
        let started = try (0..<6).map { worker in
            try StressProcess.start(["mixed", directory.keychain.path, "\(worker)", "20", "\(worker + 1)"])
        }
        for (process, output, errors) in started {
            _ = output.fileHandleForReading.readDataToEndOfFile()
            let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(problems)")
        }
        let engine = try Engine(storage: .directory(directory.keychain))
        #expect(try engine.integrityCheck() == "ok")
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.keychain.path)
        #expect(
            Set(entries).isSubset(of: [
                "keychain.db", "keychain.db-wal", "keychain.db-shm", "device.key", "keychain.hwm",
            ]))
        // Every worker checked each status against its model, so all of them wrote into one keychain.
        let items = try engine.copyMatching(
            ItemQuery(itemClass: .genericPassword, limit: .all), for: Caller(applicationIdentifier: "TEAM.stress"))
        #expect(!items.isEmpty)
    }
}
