import Foundation
import Testing

@Suite("Keychains: names, paths, create, delete, passcodes")
struct KeychainManagementTests {
    @Test("A bare name is a keychain under $KEYCHAIN_HOME/keychains; .keychain suffixes name the same one")
    func bareNames() throws {
        let home = try TestHome()
        let tool = home.tool
        #expect(try tool.run(["create-keychain", "-p", "", "ci.keychain"]).status == 0)
        let directory = home.defaultKeychain.appendingPathComponent("keychains/ci")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("keychain.db").path))
        for privateDirectory in [home.defaultKeychain, directory.deletingLastPathComponent(), directory] {
            let mode =
                try FileManager.default.attributesOfItem(atPath: privateDirectory.path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(privateDirectory.path) has mode \(String(mode ?? 0, radix: 8))")
        }
        #expect(try tool.run(["create-keychain", "-p", "", "a", "a.keychain"]).status == 2)
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "x", "ci"]).status == 0)
        let found = try tool.run(["find-generic-password", "-a", "a", "ci.keychain-db"])
        #expect(found.output.hasPrefix("keychain: \"\(directory.path)\"\n"))
        let duplicate = try tool.run(["create-keychain", "-p", "", "ci"])
        #expect(duplicate.status == 48)
        #expect(
            duplicate.errors.hasPrefix(
                "security: SecKeychainCreate ci: A keychain with the same name already exists. ("))
    }

    @Test("login names the default keychain, which is created on first use")
    func login() throws {
        let home = try TestHome()
        let tool = home.tool
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "x"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "a", "-w", "login.keychain"]).output == "x\n")
        #expect(try tool.run(["find-generic-password", "-a", "a", "-w", "login"]).output == "x\n")
        #expect(try tool.run(["delete-keychain", "login"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: home.defaultKeychain.path))
    }

    @Test("create-keychain reads the passcode from standard input, and the keychain then starts locked")
    func createWithPasscode() throws {
        let home = try TestHome()
        let path = home.keychain("team")
        let created = try home.tool.run(["create-keychain", path], input: "correct horse\n")
        #expect(created.status == 0)
        #expect(created.output.isEmpty && created.errors.isEmpty)
        let info = try home.tool.run(["show-keychain-info", path])
        #expect(info.errors == "Keychain \"\(path)\" no-timeout\n")
        #expect(info.output.contains("passcode: set\n"))
        #expect(info.output.contains("lock state: locked"))
        #expect(try home.tool.run(["unlock-keychain", path], input: "correct horse\n").status == 0)
        #expect(try home.tool.run(["unlock-keychain", path], input: "wrong\n").status == 51)
    }

    @Test("create-keychain refuses a directory that holds other files, and deletes nothing then")
    func createRefusesOccupiedDirectory() throws {
        let home = try TestHome()
        let occupied = home.url.appendingPathComponent("documents")
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: occupied.appendingPathComponent("notes.txt"))
        let result = try home.tool.run(["create-keychain", "-p", "", occupied.path])
        #expect(result.status == 206)
        #expect(result.errors.contains("exists and is not an empty directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.path) == ["notes.txt"])
    }

    @Test("delete-keychain removes a keychain's files only, and refuses what is not a keychain")
    func deleteKeychain() throws {
        let home = try TestHome()
        let path = home.keychain("old")
        #expect(try home.tool.run(["create-keychain", "-p", "", path]).status == 0)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path).appendingPathComponent("notes.txt"))
        #expect(try home.tool.run(["delete-keychain", path]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["notes.txt"])

        let refused = try home.tool.run(["delete-keychain", path])
        #expect(refused.status == 50)
        #expect(refused.errors.hasPrefix("security: SecKeychainDelete: The specified keychain could not be found. ("))
        #expect(FileManager.default.fileExists(atPath: path + "/notes.txt"))
        #expect(try home.tool.run(["delete-keychain"]).status == 2)
    }

    @Test("set-keychain-password sets, changes and removes a passcode, checking the old one")
    func setKeychainPassword() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("kc", passcode: "old", passwords: [("alice", "api", "s3cret")])
        let wrong = try home.tool.run(["set-keychain-password", "-o", "nope", "-p", "new", path])
        #expect(wrong.status == 51)
        #expect(
            wrong.errors.hasPrefix("security: error changing password for \"\(path)\": The user name or passphrase"))
        // Old and new from standard input, one line each.
        #expect(try home.tool.run(["set-keychain-password", path], input: "old\n\n").status == 0)
        let info = try home.tool.run(["show-keychain-info", path])
        #expect(info.output.contains("passcode: none\n"))
        #expect(try home.tool.run(["find-generic-password", "-a", "alice", "-w", path]).output == "s3cret\n")
    }
}
