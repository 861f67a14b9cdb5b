import Foundation
import KeychainTPM
import TestSupport
import Testing

@testable import KeychainCore

@Suite(
    "The passcode entangled with the TPM",
    .enabled(
        if: SoftwareTPM.unavailableReason == nil && TPMContext.loadFailure() == nil,
        "needs swtpm and libtss2 (scripts/bootstrap installs them)"))
struct TPMPasscodeTests {
    /// Opens the keychain in `directory` with `tcti` as its TPM (`none` for none).
    private func open(_ directory: TemporaryDirectory, _ clock: TestClock, tpm tcti: String) throws -> Engine {
        try DeviceKeyTPM.$tcti.withValue(tcti) { try TestKeychain.open(directory, clock) }
    }

    /// The blob of the passcode's HMAC key in the TPM, as the keybag stores it.
    private func passcodeKeyBlob(_ directory: TemporaryDirectory) throws -> Data? {
        let database = try Database(path: KeychainDirectory(url: directory.keychain).databasePath)
        return try database.first("SELECT wrapped FROM class_keys WHERE name = 'passcode-tpm'") { $0.blob(0) } ?? nil
    }

    @Test("a passcode set on a TPM-sealed keychain is entangled with the TPM, unlocks, and a wrong one is refused")
    func entangledAndUnlocked() throws {
        let tpm = try SoftwareTPM()
        try DeviceKeyTPM.sharedContext(tcti: tpm.tcti).setDictionaryAttackParameters(
            maximumTries: 100, recoveryTime: 1, lockoutRecovery: 1)
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            try engine.addPassword("alice", "the secret", [.accessible: .string("ak")])
            try engine.setPasscode("1234", current: nil)
        }
        let blob = try #require(try passcodeKeyBlob(directory))
        #expect(blob.prefix(4) == Data("STPM".utf8))
        let engine = try open(directory, clock, tpm: tpm.tcti)
        #expect(status { _ = try engine.password("alice") } == .interactionNotAllowed)
        #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)
        try engine.unlock(passcode: "1234")
        #expect(try engine.password("alice") == "the secret")
        // Changed and removed: a new TPM key, then none.
        try engine.setPasscode("5678", current: "1234")
        #expect(try passcodeKeyBlob(directory) != blob)
        try open(directory, clock, tpm: tpm.tcti).unlock(passcode: "5678")
        try engine.removePasscode(current: "5678")
        #expect(try passcodeKeyBlob(directory) == nil)
        #expect(try open(directory, clock, tpm: tpm.tcti).password("alice") == "the secret")
    }

    @Test("a keychain with a file device key keeps its passcode as before: no TPM key")
    func fileKeyUnchanged() throws {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        try open(directory, clock, tpm: "none").setPasscode("1234", current: nil)
        #expect(try passcodeKeyBlob(directory) == nil)
        try open(directory, clock, tpm: "none").unlock(passcode: "1234")
    }

    @Test("attack: repeated wrong passcodes engage the TPM's lockout, which the engine and the TPM report")
    func lockoutEngages() throws {
        let tpm = try SoftwareTPM()
        let context = try DeviceKeyTPM.sharedContext(tcti: tpm.tcti)
        try context.setDictionaryAttackParameters(maximumTries: 3, recoveryTime: 1000, lockoutRecovery: 1000)
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        try open(directory, clock, tpm: tpm.tcti).setPasscode("1234", current: nil)
        let engine = try open(directory, clock, tpm: tpm.tcti)
        for _ in 1...3 {
            #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)
        }
        // The keybag's own count allows five free attempts; the TPM stops at three, the right passcode included.
        let refused = #expect(throws: EngineError.self) { try engine.unlock(passcode: "1234") }
        #expect(refused?.code == .interactionNotAllowed, "\(String(describing: refused))")
        #expect(refused?.message.contains("dictionary-attack lockout") == true, "\(String(describing: refused))")
        // The TPM itself says so: any DA-protected key, with its right authorization, is refused now.
        let probe = try context.createHMACKey(auth: Array(repeating: 7, count: 32))
        let lockout = #expect(throws: TPMError.self) {
            try context.hmac(probe, auth: Array(repeating: 7, count: 32), data: [1])
        }
        #expect(lockout?.code == .lockout, "\(String(describing: lockout))")
        // Reset through the lockout hierarchy (the owner's remedy), the right passcode opens again.
        try context.resetDictionaryAttackLockout()
        try engine.unlock(passcode: "1234")
    }

    @Test("attack: the directory copied to another TPM cannot even check a passcode guess")
    func copiedCannotCheckGuess() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        try DeviceKeyTPM.sharedContext(tcti: first.tcti).setDictionaryAttackParameters(
            maximumTries: 100, recoveryTime: 1, lockoutRecovery: 1)
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: first.tcti)
            try engine.setPasscode("1234", current: nil)
            try engine.checkpoint()
        }
        let copy = try directory.copy()
        let opened = #expect(throws: EngineError.self) { try open(copy, clock, tpm: second.tcti) }
        #expect(opened?.code == .invalidKeychain, "\(String(describing: opened))")
        // Even given the passcode's own TPM key from the copy and the right authorization value's shape, the other
        // TPM refuses to load it: no guess can be checked there.
        let blob = try TPMBlob(serialized: Array(try #require(try passcodeKeyBlob(copy))))
        let other = try DeviceKeyTPM.sharedContext(tcti: second.tcti)
        let refused = #expect(throws: TPMError.self) {
            try other.hmac(blob, auth: Array(repeating: 1, count: 32), data: [1])
        }
        #expect(refused?.code == .foreignBlob, "\(String(describing: refused))")
    }
}
