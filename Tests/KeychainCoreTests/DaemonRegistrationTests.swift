import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Registration (issue 20, item 5): a group that lends itself to anything but the app is refused, and the daemon's
/// check that a sender still runs works as deployed (another user, no `CAP_KILL`).
@Suite(
    "keychaind registration: shared groups, and the sender's liveness", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Wall.canCreateUsers, Wall.needsRoot))
struct DaemonRegistrationTests {
    /// The engine error `body` threw, if any.
    private func refusal(_ body: () throws -> Void) -> EngineError? {
        do {
            try body()
            return nil
        } catch {
            return error as? EngineError
        }
    }

    @Test("Two executables setgid to one group: registering either is refused, naming the other")
    func twoExecutablesShareAGroup() throws {
        let lab = try WallLab()
        let group = try TestGroup()
        let app = try lab.install("app", setgid: group)
        let other = try lab.install("other", setgid: group)
        let refused = refusal { try lab.register(app, identifier: "TEAMA.a", groups: []) }
        #expect(refused?.code == .param, "registered an app whose group another executable is setgid to")
        #expect(refused?.message.contains(other) == true, "\(refused?.message ?? "")")
        // Without the other executable's setgid bit, the group is the app's alone.
        chmod(other, 0o755)
        try lab.register(app, identifier: "TEAMA.a", groups: [])
    }

    @Test("A group with a member, listed or by primary group, is refused, naming the member")
    func groupWithMembers() throws {
        let lab = try WallLab()
        let group = try TestGroup()
        let app = try lab.install("app", setgid: group)
        let member = try TestUser()
        try Wall.system("usermod", ["-a", "-G", group.name, member.name])
        let listed = refusal { try lab.register(app, identifier: "TEAMA.a", groups: []) }
        #expect(listed?.code == .param, "registered an app whose group has a member")
        #expect(listed?.message.contains(member.name) == true, "\(listed?.message ?? "")")
        try Wall.system("gpasswd", ["-d", member.name, group.name])
        try lab.register(app, identifier: "TEAMA.a", groups: [])

        let primaryGroup = try TestGroup()
        let secondApp = try lab.install("app2", setgid: primaryGroup)
        let primary = try TestUser(primaryGroup: primaryGroup)
        let byPrimary = refusal { try lab.register(secondApp, identifier: "TEAMB.b", groups: []) }
        #expect(byPrimary?.code == .param && byPrimary?.message.contains(primary.name) == true)
    }

    @Test("The deployed daemon's liveness check answers for another user's process (poll, no kill permission)")
    func livenessAsDeployed() throws {
        let lab = try WallLab()
        let user = try TestUser()
        let probe = try lab.install("probe")
        // Another user's process that ends by itself a little later; the check runs as the daemon's user.
        let target = Process()
        let sleeper = user.command(["/bin/sleep", "3"])
        target.executableURL = URL(fileURLWithPath: sleeper[0])
        target.arguments = Array(sleeper.dropFirst())
        try target.run()
        defer {
            target.terminate()
            target.waitUntilExit()
        }
        let command = try lab.daemon.asDaemonUser([probe, "-", "liveness", "\(target.processIdentifier)"])
        let result = try Wall.run(command, environment: ["SWIFT_BACKTRACE": "enable=no"])
        let line = try JSONDecoder().decode(ProbeLine.self, from: Data(result.output.utf8))
        #expect(line.running == true, "the daemon's user could not tell that the process runs: \(result.output)")
        #expect(line.stillRunning == false, "\(result.output)")
    }
}
