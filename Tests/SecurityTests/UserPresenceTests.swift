import Foundation
import LocalAuthentication
import Security
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore
@testable import KeychainPrompts

/// Reading items with access control through SecItem, with Apple's statuses (SecItem.m's `SecItemAuthDo` loop and
/// `SecItemAuthMapError`): the passcode typed at the prompt returns the data; a wrong one is `errSecAuthFailed`; a
/// cancel `errSecUserCanceled`; no way to ask `errSecInteractionNotAllowed`; `kSecUseAuthenticationUISkip` leaves
/// the item out. The prompts come from a script here; `SeedAccessControlTerminalTests` types at a real terminal.
@Suite struct UserPresenceTests {
    private func keychainWithItem(
        _ flags: SecAccessControlCreateFlags = .userPresence, context: AuthenticationContext? = nil
    ) throws -> TestSecItemKeychain {
        let keychain = try TestSecItemKeychain()
        try keychain.engine.setPasscode("2468", current: nil)
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
            var attributes: [String: Any] = [
                kSecAttrAccessControl as String: control, kSecValueData as String: bytes("token"),
            ]
            if let context { attributes[kSecUseAuthenticationContext as String] = context }
            #expect(add(password("carol", attributes)).status == errSecSuccess)
        }
        return keychain
    }

    private func read(_ extra: [String: Any] = [:]) -> Outcome {
        copy(password("carol", [kSecReturnData as String: true].merging(extra) { $1 }))
    }

    @Test func thePasscodeTypedAtThePromptReturnsTheData() throws {
        let keychain = try keychainWithItem()
        let prompter = ScriptedPrompter([.type("2468")])
        try keychain.run {
            let outcome = read([
                kSecUseAuthenticationContext as String: scriptedContext(prompter),
                kSecUseOperationPrompt as String: "Sign in to the API",
            ])
            #expect(outcome.status == errSecSuccess)
            #expect(outcome.result as? Data == bytes("token"))
        }
        #expect(prompter.asked.count == 1)
        #expect(prompter.asked.first?.operationPrompt == "Sign in to the API")
    }

    @Test func aWrongPasscodeIsAuthFailedAndCounts() throws {
        let keychain = try keychainWithItem()
        try keychain.run {
            let outcome = read([
                kSecUseAuthenticationContext as String: scriptedContext(ScriptedPrompter([.type("0000")]))
            ])
            #expect(outcome.status == errSecAuthFailed)
        }
        #expect(try keychain.engine.keybagStatus().failedAttempts == 1)
    }

    @Test func aCancelIsUserCanceledAndNoWayToAskIsInteractionNotAllowed() throws {
        let keychain = try keychainWithItem()
        try keychain.run {
            #expect(
                read([kSecUseAuthenticationContext as String: scriptedContext(ScriptedPrompter([.cancel]))]).status
                    == errSecUserCanceled)
            #expect(
                read([kSecUseAuthenticationContext as String: scriptedContext(ScriptedPrompter([.unavailable]))]).status
                    == errSecInteractionNotAllowed)
        }
    }

    @Test func uiFailSkipAndInteractionNotAllowedNeverAsk() throws {
        let keychain = try keychainWithItem()
        let prompter = ScriptedPrompter([.type("2468")])
        let context = scriptedContext(prompter)
        try keychain.run {
            #expect(
                read([
                    kSecUseAuthenticationContext as String: context,
                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
                ]).status == errSecInteractionNotAllowed)
            #expect(
                read([
                    kSecUseAuthenticationContext as String: context,
                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
                ]).status == errSecItemNotFound)
            let laContext = LAContext(authenticationContext: context)
            laContext.interactionNotAllowed = true
            #expect(read([kSecUseAuthenticationContext as String: laContext]).status == errSecInteractionNotAllowed)
        }
        #expect(prompter.asked.isEmpty)
    }

    /// Apple's per-operation ACL: reading attributes, updating attributes and deleting need no prompt; writing the
    /// data does.
    @Test func onlyTheDataNeedsThePasscode() throws {
        let keychain = try keychainWithItem()
        let prompter = ScriptedPrompter([.type("2468")])
        try keychain.run {
            let attributes = copy(password("carol", [kSecReturnAttributes as String: true]))
            #expect(attributes.status == errSecSuccess)
            #expect((attributes.result as? [String: Any])?[kSecAttrAccessControl as String] != nil)
            #expect(update(password("carol"), [kSecAttrLabel as String: "Carol"]).status == errSecSuccess)
            let context = scriptedContext(prompter)
            #expect(
                update(
                    password("carol", [kSecUseAuthenticationContext as String: context]),
                    [kSecValueData as String: bytes("token-2")]
                ).status == errSecSuccess)
            #expect(prompter.asked.count == 1)
            #expect(delete(password("carol")).status == errSecSuccess)
        }
    }

    @Test func aContextIsReusedWithinItsWindowAndAsksAgainAfterInvalidateOrLock() throws {
        let keychain = try keychainWithItem()
        let prompter = ScriptedPrompter([.type("2468"), .type("2468"), .type("2468")])
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let context = scriptedContext(prompter) { now.withLock { $0 } }
        let laContext = LAContext(authenticationContext: context)
        laContext.touchIDAuthenticationAllowableReuseDuration = 1_000
        #expect(
            laContext.touchIDAuthenticationAllowableReuseDuration
                == LATouchIDAuthenticationMaximumAllowableReuseDuration)
        try keychain.run {
            let query: [String: Any] = [kSecUseAuthenticationContext as String: laContext]
            #expect(read(query).status == errSecSuccess)
            now.withLock { $0 += 60 }
            #expect(read(query).status == errSecSuccess)
            #expect(prompter.asked.count == 1)
            laContext.invalidate()
            #expect(read(query).status == errSecSuccess)
            #expect(prompter.asked.count == 2)
            keychain.engine.lock()
            try keychain.engine.unlock(passcode: "2468")
            #expect(read(query).status == errSecSuccess)
            #expect(prompter.asked.count == 3)
            now.withLock { $0 += 301 }
        }
    }

    @Test func anApplicationPasswordFromSetCredentialNeedsNoPrompt() throws {
        let prompter = ScriptedPrompter([])
        let laContext = LAContext(authenticationContext: scriptedContext(prompter))
        #expect(!laContext.isCredentialSet(.applicationPassword))
        #expect(laContext.setCredential(bytes("hunter2"), type: .applicationPassword))
        #expect(laContext.isCredentialSet(.applicationPassword))
        let keychain = try keychainWithItem(.applicationPassword, context: laContext.authenticationContext)
        keychain.run {
            let outcome = read([kSecUseAuthenticationContext as String: laContext])
            #expect(outcome.result as? Data == bytes("token"))
            let other = LAContext(authenticationContext: scriptedContext(ScriptedPrompter([.type("wrong")])))
            #expect(read([kSecUseAuthenticationContext as String: other]).status == errSecAuthFailed)
        }
        #expect(prompter.asked.isEmpty)
    }

    @Test func biometryCannotBeEvaluatedHere() {
        let context = LAContext()
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
        #expect(context.biometryType == .none)
    }
}
