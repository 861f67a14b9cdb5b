import Foundation
import TestSupport
import Testing

@testable import KeychainCore

@Suite("Reliability: the failed-passcode counter is sealed")
struct AttemptsSealTests {
    private func rawDatabase(_ keychain: TestKeychain) throws -> Database {
        try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
    }

    /// A keychain with a passcode, reopened (locked).
    private func lockedKeychain() throws -> (TestKeychain, Engine) {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        return (keychain, try keychain.reopen())
    }

    /// After an edit behind the engine's back: the next attempt is errSecDecode, then passcode entry waits the
    /// longest wait, then the right passcode works again.
    private func expectLockedOut(
        _ keychain: TestKeychain, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let engine = try keychain.reopen()
        #expect(status { try engine.unlock(passcode: "1234") } == .decode, sourceLocation: sourceLocation)
        #expect(
            status { try engine.unlock(passcode: "1234") } == .interactionNotAllowed, sourceLocation: sourceLocation)
        let state = try keychain.reopen().keybagStatus()
        #expect(
            state.retryAfter == keychain.clock.now.addingTimeInterval(PasscodePolicy.waits.last ?? 0),
            sourceLocation: sourceLocation)
        keychain.clock.advance(by: 3599)
        #expect(
            status { try engine.unlock(passcode: "1234") } == .interactionNotAllowed, sourceLocation: sourceLocation)
        keychain.clock.advance(by: 2)
        try engine.unlock(passcode: "1234")
        #expect(try engine.keybagStatus().failedAttempts == 0, sourceLocation: sourceLocation)
    }

    @Test("Reliability 13: an UPDATE that resets the failed-passcode counter is errSecDecode, then the longest wait")
    func resetCounter() throws {
        let (keychain, engine) = try lockedKeychain()
        for _ in 1...5 {
            #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)
        }
        #expect(status { try engine.unlock(passcode: "1234") } == .interactionNotAllowed)
        try rawDatabase(keychain).run("UPDATE keybag SET failed_attempts = 0, retry_after = 0")
        try expectLockedOut(keychain)
    }

    @Test("Reliability 13: editing the erase threshold or deleting the seal is caught as well")
    func otherEdits() throws {
        let (eraser, engine) = try lockedKeychain()
        try engine.setEraseAfter(failures: 10, passcode: "1234")
        try rawDatabase(eraser).run("UPDATE keybag SET erase_after = 0")
        try expectLockedOut(eraser)

        let (unsealed, _) = try lockedKeychain()
        #expect(try rawDatabase(unsealed).run("DELETE FROM class_keys WHERE name = 'attempts'") == 1)
        try expectLockedOut(unsealed)
    }

    @Test("Reliability 13: a keybag made before sealing keeps its count and is sealed at its next write")
    func keybagFromBeforeSealing() throws {
        let (keychain, _) = try lockedKeychain()
        // Make it look like a keybag of an earlier build: index key under the older associated data, no seal.
        let database = try rawDatabase(keychain)
        let directory = KeychainDirectory(url: keychain.directory.keychain)
        let deviceKey = try SecretKey(
            copying: try Data(contentsOf: URL(fileURLWithPath: directory.deviceKeyPath)).dropFirst(5))
        let record = try #require(try KeybagRecord.load(from: database))
        let wrapped = try #require(record.wrappedKeys[.index])
        let indexKey = try AEAD.open(
            key: wrapped, under: deviceKey,
            associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: .index, sealsAttempts: true))
        let older = try AEAD.seal(
            key: indexKey, under: deviceKey,
            associatedData: KeybagRecord.associatedData(keybag: record.uuid, name: .index))
        try database.run("UPDATE class_keys SET wrapped = ? WHERE name = 'index'", [.blob(older)])
        try database.run("DELETE FROM class_keys WHERE name = 'attempts'")
        try database.run("UPDATE keybag SET failed_attempts = 3")

        let engine = try keychain.reopen()
        #expect(try engine.keybagStatus().failedAttempts == 3)
        #expect(status { try engine.unlock(passcode: "0000") } == .authFailed)
        #expect(try engine.keybagStatus().failedAttempts == 4)
        // Sealed now: the same reset is caught.
        try database.run("UPDATE keybag SET failed_attempts = 0")
        try expectLockedOut(keychain)
    }
}
