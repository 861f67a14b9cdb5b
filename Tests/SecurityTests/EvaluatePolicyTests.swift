import Foundation
import LocalAuthentication
import Security
import TestSupport
import Testing

@testable import KeychainCore

/// Issue 20, item 6: `LAContext.evaluatePolicy` proves the user is there; it does not unlock the keychain. The
/// context keeps the passcode it checked and passes it with the requests of items that need it, as the
/// authentication loop does.
@Suite("LAContext.evaluatePolicy checks the passcode and changes no lock state")
struct EvaluatePolicyTests {
    @Test(
        "An evaluation leaves a locked keychain locked; a wrong passcode fails and counts; the context then opens a .userPresence item without asking"
    )
    func evaluationDoesNotUnlock() async throws {
        let keychain = try TestSecItemKeychain()
        try keychain.engine.setPasscode("2468", current: nil)
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil))
            let added = add(
                password("carol", [kSecAttrAccessControl as String: control, kSecValueData as String: bytes("token")]))
            #expect(added.status == errSecSuccess)
        }
        keychain.engine.lock()

        let wrong = LAContext(
            authenticationContext: scriptedContext(ScriptedPrompter([.type("0000")])), backend: keychain.engine)
        await #expect(throws: LAError.self) {
            _ = try await wrong.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in")
        }
        #expect(try keychain.engine.keybagStatus().failedAttempts == 1)

        let prompter = ScriptedPrompter([.type("2468")])
        let context = LAContext(authenticationContext: scriptedContext(prompter), backend: keychain.engine)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in"))
        #expect(try keychain.engine.keybagStatus().isLocked, "evaluatePolicy unlocked the keychain")
        #expect(try keychain.engine.keybagStatus().failedAttempts == 0)
        keychain.run {
            // Locked, the item's class is unavailable whatever the context holds.
            #expect(
                copy(
                    password(
                        "carol", [kSecReturnData as String: true, kSecUseAuthenticationContext as String: context])
                )
                .status == errSecInteractionNotAllowed)
        }
        // Unlocked by the user's session, the item's data needs the passcode: the context passes the one it checked.
        try keychain.engine.unlock(passcode: "2468")
        keychain.run {
            let read = copy(
                password("carol", [kSecReturnData as String: true, kSecUseAuthenticationContext as String: context]))
            #expect(read.status == errSecSuccess)
            #expect(read.result as? Data == bytes("token"))
        }
        #expect(prompter.asked.count == 1, "the context asked again")
    }
}
