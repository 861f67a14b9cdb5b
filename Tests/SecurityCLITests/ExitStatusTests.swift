import Foundation
import Testing

@Suite("Exit status: the low byte of the OSStatus, with macOS's message")
struct ExitStatusTests {
    @Test("A missing item is 44 with macOS's exact line; a duplicate is 45; -U updates instead")
    func notFoundAndDuplicate() throws {
        let home = try TestHome()
        let tool = home.tool
        let missing = try tool.run(["find-generic-password", "-a", "nobody"])
        #expect(missing.status == 44)
        #expect(missing.output.isEmpty)
        #expect(
            missing.errors
                == "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
        #expect(try tool.run(["delete-internet-password", "-s", "nowhere"]).status == 44)

        #expect(try tool.run(["add-generic-password", "-a", "alice", "-s", "api", "-w", "one"]).status == 0)
        let duplicate = try tool.run(["add-generic-password", "-a", "alice", "-s", "api", "-w", "two"])
        #expect(duplicate.status == 45)
        #expect(
            duplicate.errors.hasPrefix(
                "security: SecKeychainItemCreateFromContent (<default>): The specified item already exists in the keychain. ("
            ))
        #expect(duplicate.errors.contains("\"alice\""))
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "one\n")

        #expect(try tool.run(["add-generic-password", "-U", "-a", "alice", "-s", "api", "-w", "two"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "two\n")
        let internet = try tool.run(["add-internet-password", "-a", "a", "-s", "example.com", "-w", "x"])
        #expect(internet.status == 0)
        let internetAgain = try tool.run(["add-internet-password", "-a", "a", "-s", "example.com", "-w", "x"])
        #expect(internetAgain.status == 45)
        #expect(
            internetAgain.errors.hasPrefix(
                "security: SecKeychainAddInternetPassword <NULL>: The specified item already exists"))
    }

    @Test("delete-generic-password deletes only the first match, printing it first")
    func deleteFirstMatch() throws {
        let home = try TestHome()
        let tool = home.tool
        for account in ["a", "b"] {
            #expect(try tool.run(["add-generic-password", "-a", account, "-s", "api", "-w", account]).status == 0)
        }
        let deleted = try tool.run(["delete-generic-password", "-s", "api"])
        #expect(deleted.status == 0)
        #expect(deleted.output.contains("\"acct\"<blob>=\"a\"\n"))
        #expect(deleted.errors == "password has been deleted.\n")
        #expect(try tool.run(["find-generic-password", "-a", "a"]).status == 44)
        #expect(try tool.run(["find-generic-password", "-a", "b", "-w"]).output == "b\n")
    }

    @Test("A keychain that does not exist is 50, and nothing is created")
    func noSuchKeychain() throws {
        let home = try TestHome()
        let path = home.keychain("missing")
        let result = try home.tool.run(["find-generic-password", "-s", "api", path])
        #expect(result.status == 50)
        #expect(
            result.errors
                == "security: SecKeychainSearchCopyNext: The specified keychain could not be found. (no keychain in \(path))\n"
        )
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try home.tool.run(["unlock-keychain", "-p", "x", path]).status == 50)
        #expect(try home.tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "x", path]).status == 50)
    }

    @Test("A locked keychain without a terminal is 36, saying how to unlock; a wrong passcode is 51")
    func lockedAndWrongPasscode() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("locked", passcode: "1234", passwords: [("alice", "api", "s3cret")])
        let locked = try home.tool.run(["find-generic-password", "-a", "alice", "-w", path])
        #expect(locked.status == 36)
        #expect(locked.output.isEmpty)
        #expect(locked.errors.hasPrefix("security: SecKeychainSearchCopyNext: User interaction is not allowed. ("))
        #expect(locked.errors.contains("is locked and there is no terminal to ask for its passcode"))
        #expect(try home.tool.run(["add-generic-password", "-a", "b", "-s", "api", "-w", "x", path]).status == 36)

        let wrong = try home.tool.run(["unlock-keychain", "-p", "9999", path])
        #expect(wrong.status == 51)
        #expect(
            wrong.errors.hasPrefix(
                "security: SecKeychainUnlock \(path): The user name or passphrase you entered is not correct. ("))
        #expect(try home.tool.run(["unlock-keychain", "-p", "1234", path]).status == 0)
    }

    @Test("security error prints Apple's message for each code, in decimal or hex, and exits 1 as macOS's does")
    func errorVerb() throws {
        let result = try TestHome().tool.run(["error", "-25300", "0xFFFF9D24", "-25299", "0", "12345"])
        #expect(result.status == 1)
        #expect(
            result.output == """
                Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain.
                Error: 0xFFFF9D24 -25308 User interaction is not allowed.
                Error: 0xFFFF9D2D -25299 The specified item already exists in the keychain.
                Error: 0x00000000 0 No error.
                Error: 0x00003039 12345 OSStatus 12345

                """)
    }
}
