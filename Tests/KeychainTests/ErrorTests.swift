import Foundation
import Testing

@testable import Keychain

@Suite("Typed errors: only a missing item is nil; everything else is thrown with its status and cause")
struct ErrorTests {
    @Test("A locked keychain throws interactionNotAllowed from every read, never nil or false")
    func lockedIsThrown() throws {
        let keychain = try TestKeychain().keychain
        try keychain.set("s3cret", for: "alice")
        try keychain.setPasscode("1234")
        try keychain.lock()
        let error = try #require(keychainError { try keychain.get("alice") })
        #expect(error == .interactionNotAllowed)
        #expect(error.status == -25308)
        #expect(error.message.contains("\"alice\"") && error.message.contains("locked"))
        #expect(keychainError { try keychain.contains("alice") } == .interactionNotAllowed)
        #expect(keychainError { try keychain.allKeys() } == .interactionNotAllowed)
        #expect(keychainError { try keychain.set("new", for: "alice") } == .interactionNotAllowed)
        #expect(keychainError { try keychain.remove("alice") } == .interactionNotAllowed)
        try keychain.unlock(passcode: "1234")
        #expect(try keychain.get("alice") == "s3cret")
    }

    @Test("An access group the identity lacks throws missingEntitlement, on reads as on writes")
    func missingEntitlement() throws {
        let keychain = try TestKeychain(.inMemory).keychain.accessGroup("TEAM.someone.else")
        let write = try #require(keychainError { try keychain.set("x", for: "k") })
        #expect(write == .missingEntitlement && write.status == -34018)
        #expect(write.message.contains("TEAM.someone.else"))
        #expect(keychainError { try keychain.get("k") } == .missingEntitlement)
    }

    @Test("Items of another identity's group are simply not found")
    func otherIdentityDoesNotSee() throws {
        let fixture = try TestKeychain()
        try fixture.keychain.set("mine", for: "k")
        let other = try fixture.reopened(identity: otherIdentity())
        #expect(try other.get("k") == nil)
        #expect(try other.allKeys().isEmpty)
    }

    @Test("A wrong passcode throws authFailed; a passcode-only item without a passcode does too")
    func authFailed() throws {
        let keychain = try TestKeychain().keychain
        let noPasscode = try #require(
            keychainError { try keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("x", for: "k") })
        #expect(noPasscode == .authFailed && noPasscode.message.contains("passcode"))
        try keychain.setPasscode("right")
        try keychain.lock()
        let wrong = try #require(keychainError { try keychain.unlock(passcode: "wrong") })
        #expect(wrong == .authFailed && wrong.status == -25293)
        #expect(try keychain.keybagState().failedAttempts == 1)
    }

    @Test("An altered item throws decode, never garbage and never nil")
    func tamperedIsDecode() throws {
        let fixture = try TestKeychain()
        try fixture.keychain.set("first", for: "a")
        try fixture.keychain.set("second", for: "b")
        try Tampering.swapSecrets(inKeychainAt: try #require(fixture.directory).keychain)
        let error = try #require(keychainError { try fixture.keychain.get("a") })
        #expect(error == .decode && error.status == -26275)
        #expect(error.message.contains("\"a\"") && error.message.contains("failed authentication"))
    }

    @Test("A bad parameter is thrown and names the value at fault")
    func badParameter() throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let error = try #require(
            keychainError {
                try keychain.synchronizable(true).accessibility(.whenUnlockedThisDeviceOnly).set("x", for: "k")
            }
        )
        #expect(error == .param && error.status == -50 && error.message.contains("aku"))
        let identity = try #require(keychainError { try ApplicationIdentity(applicationIdentifier: "") })
        #expect(identity == .param)
        let port = try #require(
            keychainError { try keychain.add(InternetPassword(account: "a", server: "s", port: -1), secret: Data()) })
        #expect(port == .param && port.message.contains("port"))
    }

    @Test("Errors compare by status, match in catch clauses, and describe themselves with the status")
    func errorValues() throws {
        let specific = KeychainError(status: -25300, message: "no item matches the query: genp")
        #expect(specific == .itemNotFound)
        #expect(specific != .duplicateItem)
        #expect(Set([specific, .itemNotFound]).count == 1)
        #expect(specific.description == "no item matches the query: genp (-25300)")
        #expect(specific.errorDescription == specific.message)
        var caught = false
        do {
            throw specific as any Error
        } catch KeychainError.itemNotFound {
            caught = true
        } catch {
            Issue.record("not matched: \(error)")
        }
        #expect(caught)
    }
}
