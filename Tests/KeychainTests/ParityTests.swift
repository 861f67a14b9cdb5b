import Foundation
import Testing

@testable import Keychain

@Suite("In-memory and directory keychains behave the same")
struct ParityTests {
    /// Runs one scenario touching every feature and returns what each step saw (values, statuses).
    private func transcript(_ storage: Storage) throws -> [String] {
        let keychain = try TestKeychain(storage).keychain
        var lines: [String] = []
        func step<T>(_ name: String, _ body: () throws -> T) {
            do {
                lines.append("\(name): \(try body())")
            } catch let error as KeychainError {
                lines.append("\(name): error \(error.status)")
            } catch {
                lines.append("\(name): not a KeychainError: \(error)")
            }
        }
        step("get missing") { try keychain.get("k") }
        step("set") { try keychain.set("v", for: "k") }
        step("get") { try keychain.get("k") }
        step("codable") { try keychain.set(["a": 1], for: "c") }
        step("decode mismatch") { try keychain.get("c", as: [String].self) }
        step("duplicate") { try keychain.add(GenericPassword(account: "k", service: "api"), secret: Data()) }
        step("akpu without passcode") { try keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("x", for: "p") }
        step("other group") { try keychain.accessGroup("TEAM.nope").get("k") }
        step("sync this-device") {
            try keychain.synchronizable(true).accessibility(.alwaysThisDeviceOnly).set("x", for: "s")
        }
        step("inet") { try keychain.add(InternetPassword(account: "a", server: "s", port: 443), secret: Data()).port }
        step("set passcode") { try keychain.setPasscode("1234") }
        step("always") { try keychain.accessibility(.always).set("x", for: "d") }
        step("lock") { try keychain.lock() }
        step("locked get") { try keychain.get("k") }
        step("locked always") { try keychain.get("d") }
        step("locked keys") { try keychain.allKeys() }
        step("locked migration") { try keychain.migrateAccessibility(to: .always) }
        step("wrong passcode") { try keychain.unlock(passcode: "0000") }
        step("state") { try keychain.keybagState().failedAttempts }
        step("unlock") { try keychain.unlock(passcode: "1234") }
        step("keys") { try keychain.allKeys() }
        step("migrate") { try keychain.migrateAccessibility(to: .afterFirstUnlock) }
        step("akpu") { try keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("x", for: "p") }
        step("keys with akpu") { try keychain.allKeys() }
        step("remove passcode") { try keychain.removePasscode("1234") }
        step("keys after") { try keychain.allKeys() }
        step("remove all") { try keychain.removeAll() }
        return lines
    }

    @Test("The same scenario gives the same transcript in memory and on disk")
    func sameTranscript() throws {
        let inMemory = try transcript(.inMemory)
        let directory = try transcript(.directory)
        #expect(inMemory == directory)
        #expect(inMemory.contains("locked get: error -25308"))
        #expect(inMemory.contains("keys with akpu: [\"c\", \"d\", \"k\", \"p\"]"))
        #expect(inMemory.contains("keys after: [\"c\", \"d\", \"k\"]"))
    }
}
