import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import Keychain

@Suite("Default location and identity")
struct DefaultsTests {
    @Test("Without a directory the keychain lives in $KEYCHAIN_HOME, and values there share one engine")
    func defaultDirectory() throws {
        let home = try TemporaryDirectory()
        let identity = try appIdentity()
        try Keychain.$environmentOverride.withValue(["KEYCHAIN_HOME": home.keychain.path]) {
            let keychain = Keychain(service: "api", identity: identity)
            #expect(keychain.directory?.path == home.keychain.path)
            try keychain.set("v", for: "k")
            #expect(FileManager.default.fileExists(atPath: home.keychain.appendingPathComponent("keychain.db").path))
            let explicit = Keychain(service: "api", directory: home.keychain, identity: identity)
            #expect(explicit.connection === keychain.connection)
            #expect(try explicit.get("k") == "v")
        }
    }

    @Test("The default identity is the executable's name, or the entitlements file's")
    func defaultIdentity() throws {
        let home = try TemporaryDirectory()
        let executable = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        ).lastPathComponent
        let resolved = try Keychain.$environmentOverride.withValue(["KEYCHAIN_HOME": home.keychain.path]) {
            try ApplicationIdentity.current()
        }
        #expect(resolved.applicationIdentifier == executable)
        #expect(resolved.accessGroups == [executable])

        let entitlements = home.url.appendingPathComponent("app.entitlements")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>application-identifier</key><string>TEAM.com.example.entitled</string>
            <key>keychain-access-groups</key><array><string>TEAM.group</string></array>
            </dict></plist>
            """.utf8
        ).write(to: entitlements)
        let environment: ProcessEnvironment = [
            "KEYCHAIN_HOME": home.keychain.path, "KEYCHAIN_ENTITLEMENTS": entitlements.path,
        ]
        try Keychain.$environmentOverride.withValue(environment) {
            let keychain = Keychain(service: "api")
            try keychain.set("v", for: "k")
            let item = try #require(keychain.items(matching: GenericPassword.Query(account: "k")).first)
            #expect(item.accessGroup == "TEAM.group")
            #expect(try ApplicationIdentity.current().description.contains("TEAM.com.example.entitled"))
        }
    }

    @Test("A malformed entitlements file is an error of every operation, not a silent default")
    func malformedEntitlements() throws {
        let home = try TemporaryDirectory()
        let entitlements = home.url.appendingPathComponent("bad.entitlements")
        try Data("not a plist".utf8).write(to: entitlements)
        let environment: ProcessEnvironment = [
            "KEYCHAIN_HOME": home.keychain.path, "KEYCHAIN_ENTITLEMENTS": entitlements.path,
        ]
        Keychain.$environmentOverride.withValue(environment) {
            let keychain = Keychain(service: "api")
            let error = keychainError { try keychain.set("v", for: "k") }
            #expect(error == .param)
            #expect(error?.message.contains("bad.entitlements") == true)
        }
    }

    @Test("A keychain that cannot be opened throws from its first operation, and from the next")
    func unopenable() throws {
        let home = try TemporaryDirectory()
        let blocker = home.url.appendingPathComponent("file")
        try Data().write(to: blocker)
        let keychain = Keychain(service: "api", directory: blocker, identity: try appIdentity())
        let first = try #require(keychainError { try keychain.get("k") })
        #expect(first.message.contains("\"k\""))
        #expect(keychainError { try keychain.get("k") } == first)
    }
}
