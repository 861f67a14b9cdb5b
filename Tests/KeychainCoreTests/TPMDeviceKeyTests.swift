import Foundation
import KeychainTPM
import TestSupport
import Testing

@testable import KeychainCore

@Suite(
    "The device key sealed by a TPM",
    .enabled(
        if: SoftwareTPM.unavailableReason == nil && TPMContext.loadFailure() == nil,
        "needs swtpm and libtss2 (scripts/bootstrap installs them)"))
struct TPMDeviceKeyTests {
    /// Opens the keychain in `directory` with `tcti` as its TPM (`none` for none).
    private func open(_ directory: TemporaryDirectory, _ clock: TestClock, tpm tcti: String) throws -> Engine {
        try DeviceKeyTPM.$tcti.withValue(tcti) { try TestKeychain.open(directory, clock) }
    }

    @Test("a keychain made where a TPM answers seals its device key to it, and keeps its items across reopening")
    func sealedAndReopened() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: tpm.tcti)
            try engine.addPassword("alice", "the secret")
        }
        let file = try [UInt8](Data(contentsOf: directory.keychain.appendingPathComponent("device.key")))
        #expect(Array(file.prefix(5)) == Array("SKDK".utf8) + [2])
        let reopened = try open(directory, clock, tpm: tpm.tcti)
        #expect(try reopened.password("alice") == "the secret")
    }

    @Test("attack: the keychain's directory copied to another machine (another TPM) opens nothing")
    func copiedToAnotherTPM() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        do {
            let engine = try open(directory, clock, tpm: first.tcti)
            try engine.addPassword("alice", "the secret")
            try engine.checkpoint()
        }
        let copy = try directory.copy()
        let foreign = #expect(throws: EngineError.self) { try open(copy, clock, tpm: second.tcti) }
        #expect(foreign?.code == .invalidKeychain, "\(String(describing: foreign))")
        #expect(foreign?.message.contains("another TPM") == true, "\(String(describing: foreign))")
        let none = #expect(throws: EngineError.self) { try open(copy, clock, tpm: "none") }
        #expect(none?.code == .interactionNotAllowed, "\(String(describing: none))")
        #expect(none?.message.contains("no TPM is configured") == true, "\(String(describing: none))")
        // The copy was left as it was: back on its own TPM, it opens.
        #expect(try open(copy, clock, tpm: first.tcti).password("alice") == "the secret")
    }

    @Test("without a TPM the device key is the file of format 1, as before")
    func fileWithoutTPM() throws {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        try open(directory, clock, tpm: "none").addPassword("bob", "plain")
        let file = try [UInt8](Data(contentsOf: directory.keychain.appendingPathComponent("device.key")))
        #expect(Array(file.prefix(5)) == Array("SKDK".utf8) + [1])
        #expect(file.count == 37)
    }

    @Test("a TPM that is named and does not answer stops the new keychain, leaving nothing behind")
    func namedTPMMissing() throws {
        let tpm = try SoftwareTPM()
        let tcti = tpm.tcti
        tpm.stop()
        let directory = try TemporaryDirectory()
        let error = #expect(throws: EngineError.self) { try open(directory, TestClock(), tpm: tcti) }
        #expect(error?.message.contains("no TPM answers") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: directory.keychain.appendingPathComponent("keychain.db").path))
    }
}
