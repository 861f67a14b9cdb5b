import Foundation
import Testing

/// `--access-control` on the add verbs (issue 13): the flags by their Swift names, Apple's combination rules as
/// usage errors, the constraint in find's and dump's output, and the data never shown without the factor.
@Suite("--access-control: items whose data needs the user's authentication")
struct AccessControlOptionTests {
    private let noPrompter = ["PINENTRY_PROGRAM": "/nonexistent/pinentry", "PATH": "/nonexistent"]

    @Test("Unknown names and combinations Apple refuses are usage errors naming them")
    func usageErrors() throws {
        let home = try TestHome()
        let add = ["add-generic-password", "-a", "alice", "-s", "api", "-w", "pw", "--access-control"]
        let unknown = try home.tool.run(add + ["faceID"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("\"faceID\" is not one of"))
        let both = try home.tool.run(add + ["devicePasscode,or,and"])
        #expect(both.status == 2)
        #expect(both.errors.contains("only one logical operation"))
    }

    @Test("Without a keychain passcode an item that needs it is refused and nothing is stored")
    func needsAPasscode() throws {
        let home = try TestHome()
        let added = try home.tool.run([
            "add-generic-password", "-a", "alice", "-s", "api", "-w", "pw", "--access-control", "userPresence",
        ])
        #expect(added.status != 0)
        #expect(added.errors.contains("passcode"))
        #expect(try home.tool.run(["find-generic-password", "-a", "alice"]).status != 0)
    }

    @Test("find shows the constraint; the data needs the factor, and dump -d never shows it without")
    func constraintShownDataWithheld() throws {
        let home = try TestHome()
        var tool = home.tool
        tool.environment = noPrompter
        let add = try tool.run([
            "add-generic-password", "-a", "alice", "-s", "api", "-w", "hidden-secret", "--access-control",
            "biometryAny",
        ])
        #expect(add.status == 0, "\(add.errors)")
        let found = try tool.run(["find-generic-password", "-a", "alice"])
        #expect(found.output.contains("\"accc\"<blob>=\"biometryAny\""))
        let password = try tool.run(["find-generic-password", "-a", "alice", "-w"])
        #expect(password.status != 0)
        #expect(!password.output.contains("hidden-secret"))
        let dump = try tool.run(["dump-keychain", "-d"])
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.contains("<not shown: its access control (biometryAny) was not satisfied>"))
        #expect(!dump.output.contains("hidden-secret"))
    }

    @Test("An application password with no way to ask for it is interaction-not-allowed")
    func applicationPasswordCannotBeAsked() throws {
        let home = try TestHome()
        var tool = home.tool
        tool.environment = noPrompter
        let added = try tool.run([
            "add-generic-password", "-a", "alice", "-s", "api", "-w", "pw", "--access-control", "applicationPassword",
        ])
        #expect(added.status != 0)
        #expect(added.errors.contains("-25308") || added.errors.contains("cannot be asked"), "\(added.errors)")
    }
}
