import Foundation
import KeychainTPM
import TestSupport
import Testing

@testable import KeychainCore

/// Attacks on the TPM bindings with the disk in hand: a rollback measured against the counter's interval, and a
/// sealed device key altered byte by byte. Real swtpm, real keychains.
@Suite(
    "Attacks on the TPM bindings: the rollback window, a tampered sealed key",
    .enabled(
        if: SoftwareTPM.unavailableReason == nil && TPMContext.loadFailure() == nil,
        "needs swtpm and libtss2 (scripts/bootstrap installs them)"))
struct TPMBindingAttackTests {
    private func open(_ directory: TemporaryDirectory, _ clock: TestClock, tpm tcti: String) throws -> Engine {
        try DeviceKeyTPM.$tcti.withValue(tcti) { try TestKeychain.open(directory, clock) }
    }

    /// The high-water mark's sequence and the sequence its TPM counter was last advanced at (format 2: magic,
    /// sequence, counter value, sequence at the last advance, tag).
    private func mark(_ directory: TemporaryDirectory) throws -> (sequence: Int64, counter: Int64, advanced: Int64) {
        let bytes = [UInt8](try Data(contentsOf: directory.keychain.appendingPathComponent("keychain.hwm")))
        try #require(bytes.count == 48, "a mark of \(bytes.count) bytes")
        func integer(_ offset: Int) -> Int64 {
            bytes[offset..<offset + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        return (integer(8), integer(16), integer(24))
    }

    /// Writes filler items until the mark is `offset` sequences past the counter's last advance.
    private func write(_ engine: Engine, _ directory: TemporaryDirectory, untilOffset offset: Int64) throws {
        var index = 0
        while true {
            let now = try mark(directory)
            if now.sequence - now.advanced == offset { return }
            try engine.addPassword("filler \(UUID())", "x")
            index += 1
            try #require(index < 200, "the mark never reached offset \(offset): \(now)")
        }
    }

    /// Takes a copy when the mark is `offset` sequences past the counter's last advance, changes alice's password
    /// and then makes `changes` changes in all, puts the copy back, and returns what reading alice then gives: the
    /// password (the rollback went unnoticed) or the error.
    private func rollBack(copiedAtOffset offset: Int64, changes: Int, tpm: SoftwareTPM) throws -> Result<
        String, EngineError
    > {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            try engine.addPassword("alice", "revoked")
            try engine.addPassword("filler first", "x")
            try write(engine, directory, untilOffset: offset)
            try engine.checkpoint()
        }
        let copy = try directory.copy()
        let before = try mark(directory)
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            _ = try engine.update(
                ItemQuery(itemClass: .genericPassword, attributes: genp("alice")),
                with: ItemChanges(data: Data("rotated".utf8)), for: app)
            for index in 1..<changes { try engine.addPassword("later \(index)", "x") }
            try engine.checkpoint()
        }
        let after = try mark(directory)
        try #require(after.sequence - before.sequence == Int64(changes), "\(before) → \(after)")
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: copy.url, to: directory.url)
        do {
            return .success(try open(directory, clock, tpm: tpm.tcti).password("alice"))
        } catch let error as EngineError {
            return .failure(error)
        }
    }

    @Test(
        "attack: a copy put back goes unnoticed exactly when the TPM counter did not advance since it was taken: up to 31 changes right after an advance, none across one"
    )
    func rollbackWindow() throws {
        let tpm = try SoftwareTPM()
        // Copied right after the counter advanced: 31 changes later, the copy (alice's revoked password) is served.
        let unnoticed = try rollBack(copiedAtOffset: 0, changes: 31, tpm: tpm)
        #expect(try unnoticed.get() == "revoked", "\(unnoticed)")
        // One more change and the counter advanced: refused.
        let across = try rollBack(copiedAtOffset: 0, changes: 32, tpm: tpm)
        guard case .failure(let refused) = across else {
            Issue.record("a copy 32 changes old was served: \(across)")
            return
        }
        #expect(refused.code == .decode && refused.message.contains("rolled back"), "\(refused)")
        // Copied just before an advance: a single change later the copy is refused.
        let late = try rollBack(copiedAtOffset: 31, changes: 1, tpm: tpm)
        guard case .failure(let lateRefusal) = late else {
            Issue.record("a copy taken just before the counter advanced was served: \(late)")
            return
        }
        #expect(lateRefusal.code == .decode && lateRefusal.message.contains("rolled back"), "\(lateRefusal)")
    }

    @Test(
        "attack: every byte of a TPM-sealed device.key altered in turn opens nothing: the keychain refuses it with an error, never with another key"
    )
    func tamperedSealedKey() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        try open(directory, clock, tpm: tpm.tcti).addPassword("alice", "the secret")
        let path = directory.keychain.appendingPathComponent("device.key")
        let original = try Data(contentsOf: path)
        #expect(Array(original.prefix(5)) == Array("SKDK".utf8) + [2])
        var outcomes: [EngineError.Code: Int] = [:]
        for offset in 0..<original.count {
            var altered = original
            altered[offset] ^= 0x01
            try altered.write(to: path)
            do {
                let secret = try open(directory, clock, tpm: tpm.tcti).password("alice")
                Issue.record("device.key with byte \(offset) altered opened the keychain (alice: \(secret))")
            } catch let error as EngineError {
                outcomes[error.code, default: 0] += 1
            }
        }
        try original.write(to: path)
        #expect(try open(directory, clock, tpm: tpm.tcti).password("alice") == "the secret")
        // Every refusal says the key is damaged (errSecDecode) or the TPM's integrity check refused it (sealed by
        // another TPM, or altered: errSecInvalidKeychain); none says the TPM is unreachable or busy
        // (errSecInteractionNotAllowed, which a program would wait out), and none is a later failure.
        #expect(Set(outcomes.keys).isSubset(of: [.decode, .invalidKeychain]), "\(outcomes)")
    }

    @Test(
        "Documented: with the machine itself (its disk and its TPM, booted into anything: the key is bound to no PCR) and the lockout hierarchy's authorization empty, as most machines ship, the lockout is lifted between guesses and the passcode falls to guessing at the TPM's pace",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tpm2_pcrextend"),
            "needs tpm2-tools (scripts/bootstrap installs them)"))
    func stolenMachineGuessing() throws {
        let tpm = try SoftwareTPM()
        let context = try DeviceKeyTPM.sharedContext(tcti: tpm.tcti)
        // A strict lockout: three failures, no recovery for 1000 s.
        try context.setDictionaryAttackParameters(maximumTries: 3, recoveryTime: 1000, lockoutRecovery: 1000)
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            try engine.addPassword("alice", "the secret", [.accessible: .string("ak")])
            try engine.setPasscode("7391", current: nil)
        }
        // Another operating system boots: every PCR of the boot chain measures something else.
        for pcr in 0...7 {
            let extended = try StressProcess.runExecutable(
                URL(fileURLWithPath: "/usr/bin/tpm2_pcrextend"),
                ["-T", tpm.tcti, "\(pcr):sha256=" + String(repeating: "ab", count: 32)])
            try #require(extended.status == 0, "\(extended.errors)")
        }
        let engine = try open(directory, clock, tpm: tpm.tcti)
        #expect(status { _ = try engine.password("alice") } == .interactionNotAllowed)
        var lockoutsLifted = 0
        var found: String?
        for guess in (0..<12).map({ String(format: "%04d", $0 * 1111 % 10000) }) + ["7391"] {
            while true {
                let outcome = status { try engine.unlock(passcode: guess) }
                if outcome == nil { found = guess }
                guard outcome == .interactionNotAllowed else { break }
                // Locked out by the TPM, or made to wait by the keybag: lift the one, wait out the other.
                try context.resetDictionaryAttackLockout()
                lockoutsLifted += 1
                clock.advance(by: 24 * 3600)
                try #require(lockoutsLifted < 100, "the guessing never went on")
            }
            if found != nil { break }
        }
        #expect(found == "7391")
        #expect(lockoutsLifted > 0, "the TPM never locked out")
        #expect(try engine.password("alice") == "the secret")
    }

    @Test(
        "attack: whoever can use the TPM's owner hierarchy (its authorization empty, as most machines ship) undefines the keychain's counters: a copy put back long after is still refused (the counter defined anew starts at the highest value any had)",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tpm2_nvundefine"),
            "needs tpm2-tools (scripts/bootstrap installs them)"))
    func countersUndefined() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            try engine.addPassword("alice", "revoked")
            try engine.checkpoint()
        }
        let copy = try directory.copy()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            _ = try engine.update(
                ItemQuery(itemClass: .genericPassword, attributes: genp("alice")),
                with: ItemChanges(data: Data("rotated".utf8)), for: app)
            for index in 0..<100 { try engine.addPassword("later \(index)", "x") }
            try engine.checkpoint()
        }
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: copy.url, to: directory.url)
        // Refused while the counters stand.
        #expect(status { _ = try open(directory, clock, tpm: tpm.tcti).password("alice") } == .decode)
        let deviceKey = try #require(
            try DeviceKeyTPM.$tcti.withValue(tpm.tcti) {
                try DeviceKey.existing(in: KeychainDirectory(url: directory.keychain))
            })
        let indices = try TPMCounterBinding.counterIndices(for: deviceKey)
        for index in [indices.highWaterMark, indices.attempts] {
            let undefined = try StressProcess.runExecutable(
                URL(fileURLWithPath: "/usr/bin/tpm2_nvundefine"),
                ["-T", tpm.tcti, "-C", "o", "0x" + String(index, radix: 16)])
            try #require(undefined.status == 0, "\(undefined.errors)")
        }
        let refused = #expect(throws: EngineError.self) { try open(directory, clock, tpm: tpm.tcti).password("alice") }
        #expect(
            refused?.code == .decode && refused?.message.contains("rolled back") == true,
            "\(String(describing: refused))")
    }

    /// Undefines the keychain's two counters in `tpm` (the owner hierarchy's authorization empty).
    private func undefineCounters(_ directory: TemporaryDirectory, _ tpm: SoftwareTPM) throws {
        let deviceKey = try #require(
            try DeviceKeyTPM.$tcti.withValue(tpm.tcti) {
                try DeviceKey.existing(in: KeychainDirectory(url: directory.keychain))
            })
        let indices = try TPMCounterBinding.counterIndices(for: deviceKey)
        for index in [indices.highWaterMark, indices.attempts] {
            let undefined = try StressProcess.runExecutable(
                URL(fileURLWithPath: "/usr/bin/tpm2_nvundefine"),
                ["-T", tpm.tcti, "-C", "o", "0x" + String(index, radix: 16)])
            try #require(undefined.status == 0, "\(undefined.errors)")
        }
    }

    @Test(
        "attack: the counters undefined and an earlier sealed failed-passcode count written back: still read as tampering, not a reset",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tpm2_nvundefine"),
            "needs tpm2-tools (scripts/bootstrap installs them)"))
    func attemptsWrittenBackAfterUndefine() throws {
        let tpm = try SoftwareTPM()
        try DeviceKeyTPM.sharedContext(tcti: tpm.tcti).setDictionaryAttackParameters(
            maximumTries: 100, recoveryTime: 1, lockoutRecovery: 1)
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        try open(directory, clock, tpm: tpm.tcti).setPasscode("1234", current: nil)
        let path = KeychainDirectory(url: directory.keychain).databasePath
        let columns = "failed_attempts, retry_after, erase_after"
        let saved = try Database(path: path).first("SELECT \(columns) FROM keybag") { row in
            [SQLValue.integer(row.integer(0)), .real(row.real(1)), .integer(row.integer(2))]
        }
        let seal = try Database(path: path).first("SELECT wrapped FROM class_keys WHERE name = 'attempts'") {
            $0.blob(0)
        }
        let engine = try open(directory, clock, tpm: tpm.tcti)
        for _ in 1...5 { #expect(status { try engine.unlock(passcode: "0000") } == .authFailed) }
        try undefineCounters(directory, tpm)
        let database = try Database(path: path)
        try database.run("UPDATE keybag SET failed_attempts = ?, retry_after = ?, erase_after = ?", try #require(saved))
        try database.run(
            "UPDATE class_keys SET wrapped = ? WHERE name = 'attempts'", [(seal ?? nil).map { .blob($0) } ?? .null])
        let reopened = try open(directory, clock, tpm: tpm.tcti)
        let outcomes = [
            status { try reopened.unlock(passcode: "1234") }, status { try reopened.unlock(passcode: "1234") },
        ]
        #expect(outcomes == [.decode, .interactionNotAllowed], "\(outcomes)")
    }

    @Test(
        "attack: the high-water mark's counter undefined and an ordinary NV index defined in its place, holding the value the copy recorded: the copy is still refused",
        .enabled(
            if: ["tpm2_nvundefine", "tpm2_nvdefine", "tpm2_nvwrite"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: "/usr/bin/\($0)")
            }, "needs tpm2-tools (scripts/bootstrap installs them)"))
    func counterReplacedByOrdinaryIndex() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            try engine.addPassword("alice", "revoked")
            try engine.checkpoint()
        }
        let copy = try directory.copy()
        let recorded = try mark(copy).counter
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            for index in 0..<100 { try engine.addPassword("later \(index)", "x") }
        }
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: copy.url, to: directory.url)
        let deviceKey = try #require(
            try DeviceKeyTPM.$tcti.withValue(tpm.tcti) {
                try DeviceKey.existing(in: KeychainDirectory(url: directory.keychain))
            })
        let index = "0x" + String(try TPMCounterBinding.counterIndices(for: deviceKey).highWaterMark, radix: 16)
        let value = copy.url.appendingPathComponent("value")
        try Data((0..<8).reversed().map { UInt8(truncatingIfNeeded: recorded >> ($0 * 8)) }).write(to: value)
        for arguments in [
            ["tpm2_nvundefine", "-T", tpm.tcti, "-C", "o", index],
            ["tpm2_nvdefine", "-T", tpm.tcti, "-C", "o", "-s", "8", "-a", "ownerread|ownerwrite|no_da", index],
            ["tpm2_nvwrite", "-T", tpm.tcti, "-C", "o", "-i", value.path, index],
        ] {
            let ran = try StressProcess.runExecutable(
                URL(fileURLWithPath: "/usr/bin/" + arguments[0]), Array(arguments.dropFirst()))
            try #require(ran.status == 0, "\(arguments[0]): \(ran.errors)")
        }
        let refused = #expect(throws: EngineError.self) { try open(directory, clock, tpm: tpm.tcti).password("alice") }
        #expect(refused?.message.contains("is not a counter") == true, "\(String(describing: refused))")
    }
}
