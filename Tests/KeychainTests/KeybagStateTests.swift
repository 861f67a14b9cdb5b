import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import Keychain

@Suite("KeybagState is the engine's KeybagStatus, shown through the Keychain API")
struct KeybagStateTests {
    @Test("Its fields are the backend's, it encodes as the backend's status, and it decodes from one")
    func sameValue() throws {
        let keychain = try TestKeychain(.directory).keychain
        try keychain.setPasscode("1111")
        try keychain.lock()
        #expect(throws: KeychainError.authFailed) { try keychain.unlock(passcode: "2222") }
        let state = try keychain.keybagState()
        #expect(state.hasPasscode && state.isLocked && state.failedAttempts == 1)

        let encoded = try JSONEncoder().encode(state)
        let status = try JSONDecoder().decode(KeybagStatus.self, from: encoded)
        #expect(status == state.status)
        #expect(status.hasPasscode == state.hasPasscode && status.isLocked == state.isLocked)
        #expect(status.hasBeenUnlocked == state.hasBeenUnlocked && status.failedAttempts == state.failedAttempts)
        let decoded = try JSONDecoder().decode(KeybagState.self, from: try JSONEncoder().encode(status))
        #expect(decoded == state)
        #expect(Set([decoded, state]).count == 1)

        var changed = state
        changed.failedAttempts = 0
        #expect(changed.status.failedAttempts == 0)
        #expect(changed != state)
    }
}
