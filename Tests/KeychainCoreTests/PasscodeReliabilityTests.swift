import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

@Suite("Reliability: passcode attempts")
struct PasscodeReliabilityTests {
    @Test("Reliability 7: the right passcode is not refused after a later wrong attempt that finished first")
    func overlappingAttempts() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        let start = keychain.clock.now
        // Another process's wrong attempt starts after ours and ends first: it runs the moment ours reads the
        // clock to begin, and its clock is a second later.
        let other = try Engine(
            storage: .directory(keychain.directory.keychain),
            options: EngineOptions(passcodeCost: .minimum, now: { start.addingTimeInterval(1) }))
        let interleaved = Mutex(false)
        let ours = try Engine(
            storage: .directory(keychain.directory.keychain),
            options: EngineOptions(
                passcodeCost: .minimum,
                now: {
                    let first = interleaved.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { #expect(status { try other.unlock(passcode: "0000") } == .authFailed) }
                    return start
                }))
        try ours.unlock(passcode: "1234")
        #expect(try !ours.keybagStatus().isLocked)
        #expect(try ours.keybagStatus().failedAttempts == 0)
    }
}
