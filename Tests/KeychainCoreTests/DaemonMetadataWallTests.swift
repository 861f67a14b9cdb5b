import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// What crosses the access-group wall besides items (issue 20, item 4), attacked by a user's unregistered program
/// against a registered app of the same user, through the deployed keychaind: the integrity report, the list of
/// apps, the change feed's cursor and notices, and protected files' keys.
@Suite(
    "keychaind's wall around metadata and file keys", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Wall.canCreateUsers, Wall.needsRoot))
struct DaemonMetadataWallTests {
    /// A user with a registered app (setgid to a group of its own) and an unregistered program.
    private struct World {
        let lab: WallLab
        let user: TestUser
        let group: TestGroup
        let app: String
        let plain: String

        init() throws {
            lab = try WallLab()
            user = try TestUser()
            group = try TestGroup()
            app = try lab.install("app", setgid: group)
            plain = try lab.install("plain")
            try lab.register(app, identifier: "TEAMA.com.example.a", groups: ["TEAMA.com.example.a"])
        }

        func line(_ program: String, _ arguments: [String]) throws -> ProbeLine {
            try lab.line(program, as: user, arguments)
        }
    }

    @Test("verify (item counts of every group) and list-apps are root's")
    func reportsAreRoots() throws {
        let world = try World()
        #expect(try world.line(world.app, ["add", "of-a", "secret-a"]).code == nil)
        let verified = try world.line(world.plain, ["verify"])
        #expect(verified.code == .missingEntitlement, "an unregistered program verified the whole keychain")
        #expect(verified.message?.contains("only root") == true, "\(verified.message ?? "")")
        #expect(try world.line(world.app, ["verify"]).code == .missingEntitlement)
        let listed = try world.line(world.plain, ["list-apps"])
        #expect(listed.code == .missingEntitlement, "an unregistered program listed the registered apps")
        // Root still does both.
        let owner = DaemonClient(socketPath: world.lab.daemon.socketPath, user: world.user.uid)
        guard case .backend(.report(let report)) = try owner.send(.backend(.verify)) else {
            throw WallError("verify answered otherwise")
        }
        #expect(report.itemCount == 1 && report.isSound)
        guard case .apps(let apps) = try world.lab.root.send(.listApps) else { throw WallError("no apps") }
        #expect(apps.map(\.path) == [world.app])
    }

    @Test("The change feed's start and cursor do not move when another group's item changes; its own changes move them")
    func feedCursor() throws {
        let world = try World()
        #expect(try world.line(world.plain, ["add", "mine", "1"]).code == nil)
        let start = try #require(try world.line(world.plain, ["latest-sequence"]).sequence)
        for account in ["of-a-1", "of-a-2"] {
            #expect(try world.line(world.app, ["add", account, "secret"]).code == nil)
        }
        #expect(try world.line(world.plain, ["latest-sequence"]).sequence == start, "the app's writes showed")
        let page = try world.line(world.plain, ["changes", "\(start)"])
        #expect(page.count == 0 && page.sequence == start, "the cursor passed the app's changes: \(page)")
        #expect(try world.line(world.plain, ["add", "mine-2", "2"]).code == nil)
        let own = try world.line(world.plain, ["changes", "\(start)"])
        #expect(own.count == 1 && (own.sequence ?? 0) > start)
        #expect(try world.line(world.plain, ["latest-sequence"]).sequence == own.sequence)
        // The app's own feed sees its changes.
        #expect(try world.line(world.app, ["changes", "0"]).count == 2)
    }

    @Test("A subscriber hears of its own group's writes and not of another's")
    func notices() throws {
        let world = try World()
        let result = try world.lab.run(
            world.plain, as: world.user, ["watch", world.app, world.lab.daemon.socketPath, "add", "of-a2", "x"]
        ).lines
        let watch = try #require(result.last)
        #expect(watch.before == 0, "the unregistered program was told of the app's write")
        #expect((watch.after ?? 0) >= 1, "no notice of its own write")
        #expect(result.first?.code == nil, "the app's add: \(result.first?.message ?? "")")
    }

    @Test(
        "A registered app's protected file opens only for programs of its group: not the user's other programs; theirs not for the app"
    )
    func fileKeys() throws {
        let world = try World()
        let files = try TemporaryDirectory(prefix: "kcw-files")
        guard chown(files.url.path, world.user.uid, world.user.gid) == 0 else { throw WallError("cannot chown") }
        let appFile = files.file("app.protected").path
        #expect(try world.line(world.app, ["protect-file", appFile, "app's secret"]).code == nil)
        #expect(try world.line(world.app, ["read-protected", appFile]).secret == "app's secret")
        let stolen = try world.line(world.plain, ["read-protected", appFile])
        #expect(stolen.code == .missingEntitlement, "the unregistered program read \(stolen.secret ?? "nothing")")
        #expect(stolen.secret == nil)
        #expect(stolen.message?.contains("access group") == true, "\(stolen.message ?? "")")

        let plainFile = files.file("plain.protected").path
        #expect(try world.line(world.plain, ["protect-file", plainFile, "plain's secret"]).code == nil)
        #expect(try world.line(world.plain, ["read-protected", plainFile]).secret == "plain's secret")
        #expect(try world.line(world.app, ["read-protected", plainFile]).code == .missingEntitlement)
    }
}
