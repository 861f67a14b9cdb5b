import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// Every byte (or every `stride`th) of a small keychain's database and WAL flipped in turn: no flip may make the
/// engine return a wrong or stale secret, write a new keybag over the old one, or damage an item without
/// `verify()` (what `security verify-keychain` prints) saying so.
@Suite("Byte-flip sweep", .serialized)
struct ByteFlipSweepTests {
    /// What a sweep saw.
    private struct Tally: CustomStringConvertible {
        var flips = 0
        var refusedAtOpen = 0
        var reportedDamage = 0
        var harmless = 0
        var seconds = 0.0

        var description: String {
            "\(flips) flips in \(Int(seconds)) s: \(refusedAtOpen) refused at open, \(reportedDamage) reported damaged, "
                + "\(harmless) harmless"
        }
    }

    /// What one flip did.
    private enum Outcome {
        case refusedAtOpen, reportedDamage, harmless
    }

    /// A keychain's files in memory, written out for each trial.
    private struct Files: Sendable {
        var contents: [String: Data]

        init(of directory: URL) throws {
            contents = [:]
            for name in ["device.key", "keychain.db", "keychain.db-wal", "keychain.hwm"] {
                let url = directory.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.path) { contents[name] = try Data(contentsOf: url) }
            }
        }

        func write(to directory: URL) throws {
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for (name, data) in contents {
                let url = directory.appendingPathComponent(name)
                try data.write(to: url)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
        }
    }

    /// The expected secrets of the small keychain, and its files as a crash leaves them: the database alone
    /// (`checkpointed`), or with the last two writes only in the WAL.
    private func makeKeychain(in directory: URL, checkpointed: Bool) throws -> ([String: String], Files) {
        let engine = try Engine(storage: .directory(directory), options: EngineOptions(passcodeCost: .minimum))
        var expected: [String: String] = [:]
        for index in 0..<6 {
            try engine.addPassword("account-\(index)", "secret-\(index)")
            expected["account-\(index)"] = "secret-\(index)"
        }
        _ = try engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("account-1")),
            with: ItemChanges(data: Data("rotated-1".utf8)), for: app)
        expected["account-1"] = "rotated-1"
        if !checkpointed { try engine.checkpoint() }
        _ = try engine.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("account-2")), for: app)
        expected["account-2"] = nil
        try engine.addPassword("account-9", "secret-9")
        expected["account-9"] = "secret-9"
        if checkpointed { try engine.checkpoint() }
        // Taken while the engine is open: a crash would leave just these files.
        return (expected, try Files(of: directory))
    }

    /// The keybag's identity and wrapped class keys, as stored.
    private static func keybagRows(_ directory: URL) throws -> [Data] {
        let database = try KeychainFiles(directory: directory).rawDatabase()
        var rows: [Data] = []
        try database.query("SELECT uuid FROM keybag") { row in
            rows.append(row.blob(0) ?? Data())
            return true
        }
        try database.query("SELECT name, wrapped FROM class_keys ORDER BY name") { row in
            rows.append(Data(row.text(0).utf8) + (row.blob(1) ?? Data()))
            return true
        }
        return rows
    }

    /// One flip: what it did, and any broken promise.
    private static func trial(
        _ damaged: Files, name: String, offset: Int, expected: [String: String], pristineKeybag: [Data], in root: URL
    ) throws -> (outcome: Outcome, failures: [String]) {
        let trial = root.appendingPathComponent("trial")
        try damaged.write(to: trial)
        var failures: [String] = []
        var outcome = Outcome.harmless
        do {
            let opened = try? Engine(storage: .directory(trial), options: EngineOptions(passcodeCost: .minimum))
            guard let engine = opened else { return (.refusedAtOpen, []) }
            var deviations: [String] = []
            for account in (0..<10).map({ "account-\($0)" }) {
                do {
                    let found = try engine.password(account)
                    if found != expected[account] {
                        failures.append(
                            "\(name) byte \(offset): \(account) read \(found), not \(expected[account] ?? "nothing")")
                    }
                } catch let error as EngineError where error.code == .itemNotFound {
                    if expected[account] != nil { deviations.append("\(account) (\(error))") }
                } catch {
                    deviations.append("\(account) (\(error))")
                }
            }
            let report = try? engine.verify()
            // Locked items that cannot be checked fail `security verify-keychain` too (it must unlock first): a
            // damaged passcode record can make a keychain without a passcode look locked.
            let checkedAll = report.map { $0.isSound && $0.lockedItemCount == 0 } ?? false
            if !deviations.isEmpty || !checkedAll {
                outcome = .reportedDamage
                if checkedAll {
                    failures.append("\(name) byte \(offset): \(deviations) deviated, but verify() found nothing")
                }
            }
        }
        // Nothing written, or the keybag as it was: as stored intact, or as the damaged files held it.
        if try Files(of: trial).contents != damaged.contents, let after = try? keybagRows(trial),
            after != pristineKeybag
        {
            let probe = root.appendingPathComponent("probe")
            try damaged.write(to: probe)
            if (try? keybagRows(probe)) != after { failures.append("\(name) byte \(offset): the keybag was replaced") }
        }
        return (outcome, failures)
    }

    /// Flips every `stride`th byte of `name`, on two threads (each with its own directory).
    private func sweep(file name: String, checkpointed: Bool, stride: Int) throws -> Tally {
        let root = try TemporaryDirectory()
        let (expected, pristine) = try makeKeychain(in: root.file("source"), checkpointed: checkpointed)
        let original = try #require(pristine.contents[name])
        try pristine.write(to: root.file("pristine"))
        let pristineKeybag = try Self.keybagRows(root.file("pristine"))
        let tally = Mutex(Tally())
        let failures = Mutex<[String]>([])
        let start = Date()
        let workers = 2
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let workspace = root.file("worker-\(worker)")
            for offset in Swift.stride(from: worker * stride, to: original.count, by: stride * workers) {
                var damaged = pristine
                var bytes = original
                bytes[offset] ^= UInt8(1 << (offset % 8))
                damaged.contents[name] = bytes
                do {
                    let (outcome, found) = try Self.trial(
                        damaged, name: name, offset: offset, expected: expected, pristineKeybag: pristineKeybag,
                        in: workspace)
                    tally.withLock {
                        $0.flips += 1
                        switch outcome {
                        case .refusedAtOpen: $0.refusedAtOpen += 1
                        case .reportedDamage: $0.reportedDamage += 1
                        case .harmless: $0.harmless += 1
                        }
                    }
                    if !found.isEmpty { failures.withLock { $0 += found } }
                } catch {
                    failures.withLock { $0.append("\(name) byte \(offset): the trial failed: \(error)") }
                }
            }
        }
        for failure in failures.withLock({ $0 }).prefix(20) { Issue.record(Comment(rawValue: failure)) }
        var result = tally.withLock { $0 }
        result.seconds = Date().timeIntervalSince(start)
        return result
    }

    @Test("Reliability: flipped bytes of a database and its WAL never give a wrong or stale secret (sampled)")
    func sampledSweep() throws {
        let database = try sweep(file: "keychain.db", checkpointed: true, stride: 211)
        let wal = try sweep(file: "keychain.db-wal", checkpointed: false, stride: 977)
        #expect(database.flips > 100 && wal.flips > 50)
        print("byte-flip sweep (sampled): database \(database); WAL \(wal)")
    }

    @Test(
        "Soak: every byte of a small keychain's database and WAL flipped: 0 wrong or stale values, 0 keybags replaced",
        .enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_SOAK"] != nil))
    func byteFlipSoak() throws {
        let database = try sweep(file: "keychain.db", checkpointed: true, stride: 1)
        let wal = try sweep(file: "keychain.db-wal", checkpointed: false, stride: 1)
        print("byte-flip sweep: database \(database); WAL \(wal)")
    }
}
