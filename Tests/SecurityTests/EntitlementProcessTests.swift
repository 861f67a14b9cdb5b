import Foundation
import Security
import TestSupport
import Testing

/// Two processes with different entitlements on one keychain (DESIGN §5): each sees its own groups and the groups
/// they share, and nothing else. Each call is a separate `secitem-probe` process using the default keychain.
@Suite struct EntitlementProcessTests {
    private func app(_ name: String, in directory: TemporaryDirectory) throws -> Probe {
        let plist = directory.url.appendingPathComponent("\(name).entitlements")
        try writeEntitlements(
            [
                "application-identifier": "TEAM.com.example.\(name)",
                "keychain-access-groups": [
                    "$(AppIdentifierPrefix)com.example.\(name)", "$(AppIdentifierPrefix)shared",
                ],
            ], to: plist)
        return Probe(keychainHome: directory.url.appendingPathComponent("keychain"), entitlements: plist)
    }

    private func item(_ account: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        ["class": "genp", "acct": account].merging(extra) { $1 }
    }

    @Test func accessGroupsSeparateAndShareItemsBetweenProcesses() throws {
        let directory = try TemporaryDirectory()
        let one = try app("one", in: directory)
        let two = try app("two", in: directory)

        let added = try one.call("add", item("private", ["v_Data": bytes("p1"), "r_Attributes": true]))
        #expect(added.status == errSecSuccess)
        #expect((added.result as? [String: Any])?["agrp"] as? String == "TEAM.com.example.one")
        #expect(try one.call("add", item("shared", ["v_Data": bytes("s1"), "agrp": "TEAM.shared"])).status == 0)

        #expect(try two.call("copy", item("private", ["r_Data": true])).status == errSecItemNotFound)
        #expect(Probe.secret(try two.call("copy", item("shared", ["r_Data": true]))) == "s1")
        let explicit = try two.call("copy", item("private", ["agrp": "TEAM.com.example.one"]))
        #expect(explicit.status == errSecMissingEntitlement)
        #expect(explicit.message.contains("TEAM.com.example.one"))
        #expect(
            try two.call("add", item("intruder", ["agrp": "TEAM.com.example.one"])).status == errSecMissingEntitlement)
        #expect(try two.call("update", item("private"), ["v_Data": bytes("x")]).status == errSecItemNotFound)

        #expect(try two.call("delete", ["class": "genp"]).status == errSecSuccess)
        #expect(Probe.secret(try one.call("copy", item("private", ["r_Data": true]))) == "p1")
        #expect(try one.call("copy", item("shared")).status == errSecItemNotFound)
    }

    @Test func entitlementsBesideTheExecutableNameTheCaller() throws {
        let directory = try TemporaryDirectory()
        let executable = directory.url.appendingPathComponent("beside-app")
        try ExecutableCopy.copy(Probe.builtExecutable.path, to: executable.path)
        try writeEntitlements(
            ["application-identifier": "TEAM.com.example.beside"],
            to: directory.url.appendingPathComponent("beside-app.entitlements"))
        let probe = Probe(executable: executable, keychainHome: directory.url.appendingPathComponent("keychain"))
        let added = try probe.call("add", item("a", ["r_Attributes": true]))
        #expect((added.result as? [String: Any])?["agrp"] as? String == "TEAM.com.example.beside")
    }

    @Test func withoutEntitlementsTheExecutableNameIsTheIdentity() throws {
        let directory = try TemporaryDirectory()
        let probe = Probe(keychainHome: directory.url.appendingPathComponent("keychain"))
        let added = try probe.call("add", item("a", ["r_Attributes": true]))
        #expect((added.result as? [String: Any])?["agrp"] as? String == "secitem-probe")
        #expect(
            FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("keychain/device.key").path))
    }

    @Test func unreadableEntitlementsAreMissingEntitlement() throws {
        let directory = try TemporaryDirectory()
        let plist = directory.url.appendingPathComponent("broken.entitlements")
        try Data("not a property list".utf8).write(to: plist)
        let probe = Probe(keychainHome: directory.url.appendingPathComponent("keychain"), entitlements: plist)
        let outcome = try probe.call("add", item("a"))
        #expect(outcome.status == errSecMissingEntitlement)
        #expect(outcome.message.contains("broken.entitlements"))
    }

    @Test func malformedCallsFailBeforeTheKeychainIsOpened() throws {
        let directory = try TemporaryDirectory()
        let probe = Probe(keychainHome: directory.url.appendingPathComponent("keychain"))
        let outcome = try probe.call("add", ["acct": "no class"])
        #expect(outcome.status == errSecParam)
        #expect(outcome.standardError.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("keychain").path))
    }

    @Test func keychainLogWritesEachFailureToStandardError() throws {
        let directory = try TemporaryDirectory()
        var probe = Probe(keychainHome: directory.url.appendingPathComponent("keychain"))
        probe.extraEnvironment = ["KEYCHAIN_LOG": "1"]
        let outcome = try probe.call("copy", ["class": "genp", "srvr": "example.com"])
        #expect(outcome.status == errSecNoSuchAttr)
        #expect(outcome.standardError == "swift-keychain: \(outcome.message)\n")
        #expect(try probe.call("add", ["class": "genp"]).standardError.isEmpty)
    }
}
