import Foundation
import KeychainTPM
import TestSupport
import Testing

@testable import KeychainCore

@Suite(
    "Rollback refused by the TPM's counters",
    .enabled(
        if: SoftwareTPM.unavailableReason == nil && TPMContext.loadFailure() == nil,
        "needs swtpm and libtss2 (scripts/bootstrap installs them)"))
struct TPMRollbackTests {
    /// More writes than the high-water mark makes between two increments of its TPM counter.
    private let writesBeyondInterval: Int64 = 40

    /// Opens the keychain in `directory` with `tcti` as its TPM (`none` for none).
    private func open(_ directory: TemporaryDirectory, _ clock: TestClock, tpm tcti: String) throws -> Engine {
        try DeviceKeyTPM.$tcti.withValue(tcti) { try TestKeychain.open(directory, clock) }
    }

    /// A copy of the keychain's whole directory (database, WAL, device key, high-water mark), as `cp -a` makes.
    private func snapshot(_ directory: TemporaryDirectory) throws -> TemporaryDirectory {
        let copy = try directory.copy()
        return copy
    }

    /// Puts `copy` back in place of the keychain's directory.
    private func putBack(_ copy: TemporaryDirectory, into directory: TemporaryDirectory) throws {
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: copy.url, to: directory.url)
    }

    /// Copies the directory, makes more writes than the counter interval, puts the copy back, and returns what
    /// reading the first item then throws (`nil` when the rolled-back keychain is served).
    private func rollBack(tpm tcti: String) throws -> EngineError? {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tcti)
            try engine.addPassword("alice", "first")
            try engine.checkpoint()
        }
        let copy = try snapshot(directory)
        do {
            let engine = try open(directory, clock, tpm: tcti)
            for index in 0...writesBeyondInterval {
                try engine.addPassword("item \(index)", "later")
            }
            try engine.checkpoint()
        }
        try putBack(copy, into: directory)
        let engine = try open(directory, clock, tpm: tcti)
        do {
            _ = try engine.password("alice")
            return nil
        } catch let error as EngineError {
            return error
        }
    }

    @Test("attack: the whole keychain directory copied back, its high-water mark included, is refused")
    func wholeDirectoryRolledBack() throws {
        let tpm = try SoftwareTPM()
        let error = try rollBack(tpm: tpm.tcti)
        #expect(error?.code == .decode, "\(String(describing: error))")
        #expect(error?.message.contains("rolled back: the TPM's counter says") == true, "\(String(describing: error))")
    }

    @Test("without a TPM the same rollback goes unnoticed (what KeychainCore's DocC says plainly)")
    func wholeDirectoryRolledBackWithoutTPM() throws {
        #expect(try rollBack(tpm: "none") == nil)
    }

    @Test("a sound TPM-bound keychain reopens after many writes, and a mark removed from it is refused")
    func soundAndRemovedMark() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            for index in 0..<(2 * writesBeyondInterval) {
                try engine.addPassword("item \(index)", "value \(index)")
            }
        }
        #expect(try open(directory, clock, tpm: tpm.tcti).password("item 70") == "value 70")
        try FileManager.default.removeItem(at: directory.keychain.appendingPathComponent("keychain.hwm"))
        let error = #expect(throws: EngineError.self) { try open(directory, clock, tpm: tpm.tcti).password("item 1") }
        #expect(error?.code == .decode, "\(String(describing: error))")
        #expect(error?.message.contains("rolled back") == true, "\(String(describing: error))")
    }

    @Test("deleting a TPM-sealed keychain deletes its two counters from the TPM's NV memory")
    func countersReleased() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        try open(directory, clock, tpm: tpm.tcti).addPassword("alice", "first")
        let keychain = KeychainDirectory(url: directory.keychain)
        let deviceKey = try #require(
            try DeviceKeyTPM.$tcti.withValue(tpm.tcti) { try DeviceKey.existing(in: keychain) })
        let indices = try TPMCounterBinding.counterIndices(for: deviceKey)
        let context = try DeviceKeyTPM.sharedContext(tcti: tpm.tcti)
        for index in [indices.highWaterMark, indices.attempts] {
            _ = try context.read(TPMNVCounter(index: index))
        }
        try DeviceKeyTPM.$tcti.withValue(tpm.tcti) { try keychain.remove() }
        for index in [indices.highWaterMark, indices.attempts] {
            #expect(throws: TPMError.self) { try context.read(TPMNVCounter(index: index)) }
        }
    }

    // MARK: The failed-passcode counter

    /// The keybag's clear attempts state: the counter, the wait, the threshold and their seal.
    private struct AttemptsState {
        var columns: [SQLValue]
        var seal: Data?

        init(_ directory: TemporaryDirectory) throws {
            let database = try Database(path: KeychainDirectory(url: directory.keychain).databasePath)
            columns =
                try database.first("SELECT failed_attempts, retry_after, erase_after FROM keybag") { row in
                    [SQLValue.integer(row.integer(0)), .real(row.real(1)), .integer(row.integer(2))]
                } ?? []
            seal = try database.first("SELECT wrapped FROM class_keys WHERE name = 'attempts'") { $0.blob(0) } ?? nil
        }

        func write(to directory: TemporaryDirectory) throws {
            let database = try Database(path: KeychainDirectory(url: directory.keychain).databasePath)
            try database.run("UPDATE keybag SET failed_attempts = ?, retry_after = ?, erase_after = ?", columns)
            try database.run(
                "UPDATE class_keys SET wrapped = ? WHERE name = 'attempts'", [seal.map { .blob($0) } ?? .null])
        }
    }

    /// Sets a passcode, saves the attempts state, makes five wrong guesses (the wait starts), writes the saved state
    /// back, and returns what the right passcode then does twice (`nil`: it unlocked, the count and wait were reset).
    private func attemptsWrittenBack(tpm tcti: String) throws -> [EngineError.Code?] {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        if tcti != "none" {
            // Room for the five wrong guesses: the TPM's own lockout (3 tries on a new swtpm) is another test's.
            try DeviceKeyTPM.sharedContext(tcti: tcti).setDictionaryAttackParameters(
                maximumTries: 100, recoveryTime: 1, lockoutRecovery: 1)
        }
        try open(directory, clock, tpm: tcti).setPasscode("1234", current: nil)
        let saved = try AttemptsState(directory)
        let engine = try open(directory, clock, tpm: tcti)
        for _ in 1...5 {
            #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)
        }
        #expect(status { try engine.unlock(passcode: "1234") } == .interactionNotAllowed)
        try saved.write(to: directory)
        let reopened = try open(directory, clock, tpm: tcti)
        return [status { try reopened.unlock(passcode: "1234") }, status { try reopened.unlock(passcode: "1234") }]
    }

    @Test("attack: an earlier sealed attempts state written back no longer resets the count and the wait")
    func attemptsRolledBack() throws {
        let tpm = try SoftwareTPM()
        // Seen as an edit: errSecDecode, then passcode entry waits the longest wait.
        #expect(try attemptsWrittenBack(tpm: tpm.tcti) == [.decode, .interactionNotAllowed])
    }

    @Test("without a TPM the earlier sealed state still resets the count (what KeychainCore's DocC says plainly)")
    func attemptsRolledBackWithoutTPM() throws {
        #expect(try attemptsWrittenBack(tpm: "none") == [nil, nil])
    }
}
