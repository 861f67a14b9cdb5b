import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The wall keychaind puts between programs, proved with real processes: copies of keychaind-probe installed as
/// registered apps (setgid to a group of their own, so they start with `AT_SECURE`), run as a test user the test
/// creates, beside the same user's unregistered programs and another user's. The daemon runs as deployed (the
/// `keychaind` user with only `CAP_SYS_PTRACE`).
@Suite(
    "keychaind identity: registered apps, unregistered programs and users, as real processes", .serialized,
    .timeLimit(.minutes(3)), .enabled(if: Wall.canCreateUsers, Wall.needsRoot))
struct DaemonIdentityTests {
    /// App A and app B share `TEAM.shared`; each has a group of its own first (where its adds go).
    static let groupsA = ["TEAMA.com.example.a", "TEAM.shared"]
    static let groupsB = ["TEAMB.com.example.b", "TEAM.shared"]
    /// The one group of a user's unregistered programs (keychaind's `Principal.unregisteredGroup`).
    static let unregistered = "swift-keychain.unregistered"

    /// A lab with a user, app A and app B installed setgid (each to its own group) and registered, and an
    /// unregistered copy of the same program.
    private struct TwoApps {
        let lab: WallLab
        let user: TestUser
        let groups: (TestGroup, TestGroup)
        let appA: String
        let appB: String
        let plain: String

        init() throws {
            lab = try WallLab()
            user = try TestUser()
            groups = (try TestGroup(), try TestGroup())
            appA = try lab.install("app-a", setgid: groups.0)
            appB = try lab.install("app-b", setgid: groups.1)
            plain = try lab.install("plain")
            try lab.register(appA, identifier: "TEAMA.com.example.a", groups: DaemonIdentityTests.groupsA)
            try lab.register(appB, identifier: "TEAMB.com.example.b", groups: DaemonIdentityTests.groupsB)
        }

        func secret(_ program: String, _ account: String, group: String? = nil) throws -> ProbeLine {
            try lab.line(program, as: user, ["get", account] + (group.map { [$0] } ?? []))
        }

        func add(_ program: String, _ account: String, _ secret: String, group: String? = nil) throws {
            let added = try lab.line(program, as: user, ["add", account, secret] + (group.map { [$0] } ?? []))
            #expect(added.code == nil, "\(program) could not add \(account): \(added.message ?? "")")
        }
    }

    @Test(
        "Two registered apps and an unregistered program of one user: each is refused the others' items, a group two apps share is visible to both"
    )
    func appsAndUnregistered() throws {
        let world = try TwoApps()
        let described = try world.lab.line(world.appA, as: world.user, ["describe"])
        #expect(described.registered == true && described.secure == true && described.egid == world.groups.0.gid)
        #expect(described.applicationIdentifier == "TEAMA.com.example.a" && described.accessGroups == Self.groupsA)
        #expect(described.uid == world.user.uid)
        let unregistered = try world.lab.line(world.plain, as: world.user, ["describe"])
        #expect(unregistered.registered == false)
        #expect(unregistered.accessGroups == [Self.unregistered])

        try world.add(world.appA, "of-a", "secret-a")
        try world.add(world.appA, "shared", "secret-shared", group: "TEAM.shared")
        try world.add(world.appB, "of-b", "secret-b")
        try world.add(world.plain, "of-plain", "secret-plain")
        // Apple's rules put each add in the adder's first group, all in the one keychain of the user.
        #expect(
            try world.lab.groups(of: world.user) == [
                "of-a": "TEAMA.com.example.a", "shared": "TEAM.shared", "of-b": "TEAMB.com.example.b",
                "of-plain": Self.unregistered,
            ])

        let visible: [(String, [String: String])] = [
            (world.appA, ["of-a": "secret-a", "shared": "secret-shared"]),
            (world.appB, ["of-b": "secret-b", "shared": "secret-shared"]),
            (world.plain, ["of-plain": "secret-plain"]),
        ]
        for (program, secrets) in visible {
            for account in ["of-a", "of-b", "shared", "of-plain"] {
                let got = try world.secret(program, account)
                if let secret = secrets[account] {
                    #expect(got.secret == secret, "\(program) reading \(account): \(got.message ?? "")")
                } else {
                    #expect(
                        got.code == .itemNotFound, "\(program) reading \(account) got \(got.status) \(got.secret ?? "")"
                    )
                }
            }
        }
        // Naming a group the caller lacks is errSecMissingEntitlement, in a query and in an add.
        let refusals: [(String, String, String)] = [
            (world.appA, "of-b", "TEAMB.com.example.b"), (world.appB, "of-a", "TEAMA.com.example.a"),
            (world.appA, "of-plain", Self.unregistered), (world.plain, "of-a", "TEAMA.com.example.a"),
            (world.plain, "shared", "TEAM.shared"),
        ]
        for (program, account, group) in refusals {
            #expect(try world.secret(program, account, group: group).code == .missingEntitlement)
        }
        let added = try world.lab.line(world.plain, as: world.user, ["add", "sneaky", "x", "TEAM.shared"])
        #expect(added.code == .missingEntitlement)
        #expect(try world.secret(world.appB, "shared", group: "TEAM.shared").secret == "secret-shared")
    }

    @Test("Another user's process reaches only its own keychain; naming another user's keychain is refused unless root")
    func otherUser() throws {
        let world = try TwoApps()
        let other = try TestUser()
        try world.add(world.plain, "mine", "secret-mine")
        try world.add(world.appA, "mine-a", "secret-mine-a")
        let described = try world.lab.line(world.plain, as: other, ["describe"])
        #expect(described.uid == other.uid && described.registered == false)
        #expect(try world.lab.line(world.plain, as: other, ["get", "mine"]).code == .itemNotFound)
        // The same registered app run by the other user is that app in the other user's keychain.
        let otherA = try world.lab.line(world.appA, as: other, ["describe"])
        #expect(otherA.registered == true && otherA.uid == other.uid)
        #expect(try world.lab.line(world.appA, as: other, ["get", "mine-a"]).code == .itemNotFound)
        for program in [world.plain, world.appA] {
            let named = try world.lab.line(program, as: other, ["get-as-user", String(world.user.uid), "mine"])
            #expect(named.code == .missingEntitlement)
            #expect(named.message?.contains("only root") == true)
        }
        // Root names either keychain; each holds only its own user's items.
        #expect(try world.lab.groups(of: world.user).keys.sorted() == ["mine", "mine-a"])
        #expect(try world.lab.groups(of: other).isEmpty)
        let keychains = try FileManager.default.contentsOfDirectory(
            atPath: world.lab.daemon.stateDirectory.appendingPathComponent("users").path)
        #expect(Set(keychains).isSuperset(of: [String(world.user.uid), String(other.uid)]))
    }

    @Test("A connection kept across exec, or inherited by a child that execs another binary, carries no app identity")
    func inheritedConnection() throws {
        let world = try TwoApps()
        try world.add(world.appA, "of-a", "secret-a")
        // exec in place: the first line is app A on its connection, the second the other binary on the same one.
        for (command, count) in [("exec-then", 2), ("spawn-then", 3)] {
            let described = try world.lab.run(world.appA, as: world.user, [command, world.plain, "describe"]).lines
            try #require(described.count == count)
            #expect(described[0].registered == true)
            #expect(described[1].registered == false && described[1].accessGroups == [Self.unregistered])
            #expect(described[1].secure == true, "the exec'ed binary keeps app A's group, so it runs with AT_SECURE")
            let got = try world.lab.run(world.appA, as: world.user, [command, world.plain, "get", "of-a"]).lines
            try #require(got.count == count)
            #expect(got[1].code == .itemNotFound)
            if count == 3 {
                // The parent's own messages on the shared connection are still app A's.
                #expect(described[2].registered == true && got[2].registered == true)
            }
        }
        // Handed to the other registered app, the connection is app B's, never A's.
        let handed = try world.lab.run(world.appA, as: world.user, ["exec-then", world.appB, "get", "of-a"]).lines
        #expect(handed.count == 2 && handed[1].code == .itemNotFound)
    }

    @Test("The exec race: a message sent before its sender exec'ed a registered app is not the app's")
    func execRace() throws {
        let world = try TwoApps()
        try world.add(world.appA, "of-a", "secret-a")
        // The probe's child sends a get of app A's item and execs app A before the daemon reads the message.
        let stolen = try world.lab.line(
            world.plain, as: world.user, ["steal-by-exec", "of-a", world.appA, "-", "sleep", "5"])
        #expect(stolen.code == .itemNotFound, "the unregistered program read \(stolen.secret ?? "nothing")")
        #expect(stolen.secret == nil)
        // App B exec'ing into app A after sending (a shared connection again) gets nothing of A's either.
        let borrowed = try world.lab.line(
            world.appB, as: world.user, ["steal-by-exec", "of-a", world.appA, "-", "sleep", "5"])
        #expect(borrowed.code == .itemNotFound)
    }

    @Test("Started under the same user's tracer, which detaches at exec, app A lost its setgid group and its identity")
    func tracerDetachedAtExec() throws {
        let strace = try #require(Wall.tool("strace"), Wall.needsStrace)
        let world = try TwoApps()
        try world.add(world.appA, "of-a", "secret-a")
        let wrapper = [strace, "-qq", "-o", "/dev/null", "--detach-on=execve", "/usr/bin/env"]
        let detached = try world.lab.run(world.appA, as: world.user, ["describe"], wrapper: wrapper).lines
        try #require(detached.count == 1)
        // The kernel ran it with AT_SECURE but without its group (a tracer was attached at exec), now untraced.
        #expect(detached[0].secure == true && detached[0].traced == false && detached[0].egid == world.user.gid)
        #expect(detached[0].registered == false)
        let got = try world.lab.run(world.appA, as: world.user, ["get", "of-a"], wrapper: wrapper).lines
        #expect(got.first?.code == .itemNotFound)
    }

    @Test(
        "A traced registered app is refused: traced by root (setgid applied, AT_SECURE) and by the same user under --allow-insecure-exec"
    )
    func traced() throws {
        let strace = try #require(Wall.tool("strace"), Wall.needsStrace)
        let world = try TwoApps()
        let insecure = try world.lab.install("app-insecure")
        try world.lab.register(insecure, identifier: "TEAMI.insecure", groups: [], allowsInsecureExecution: true)
        let tracer = [strace, "-f", "-qq", "-o", "/dev/null"]
        let byRoot = try world.lab.line(world.appA, as: world.user, ["describe"], tracer: tracer)
        #expect(byRoot.traced == true && byRoot.secure == true && byRoot.egid == world.groups.0.gid)
        #expect(byRoot.registered == false)
        let untraced = try world.lab.line(insecure, as: world.user, ["describe"])
        #expect(untraced.registered == true && untraced.secure == false)
        let byUser = try world.lab.run(insecure, as: world.user, ["describe"], wrapper: tracer).lines
        #expect(byUser.count == 1 && byUser.first?.traced == true && byUser.first?.registered == false)
    }

    @Test(
        "LD_PRELOAD: the loader ignores it in a setgid app; the app with its setgid bit removed is refused; --allow-insecure-exec admits the preloaded code (its cost)"
    )
    func preload() throws {
        let world = try TwoApps()
        let library = try Self.preloadLibrary(in: world.lab.apps)
        let insecure = try world.lab.install("app-insecure")
        try world.lab.register(insecure, identifier: "TEAMI.insecure", groups: [], allowsInsecureExecution: true)
        let wrapper = ["/usr/bin/env", "LD_PRELOAD=\(library)"]
        func describe(_ program: String, preloaded: Bool) throws -> (line: ProbeLine, injected: Bool) {
            let run = try world.lab.run(program, as: world.user, ["describe"], wrapper: preloaded ? wrapper : [])
            try #require(run.lines.count == 1)
            return (run.lines[0], run.errors.contains("keychaind-preload: injected"))
        }
        let secure = try describe(world.appA, preloaded: true)
        #expect(!secure.injected && secure.line.registered == true && secure.line.secure == true)
        // The same registered file without its setgid bit starts without AT_SECURE: preloaded, and refused.
        chmod(world.appA, 0o755)
        let unsetgid = try describe(world.appA, preloaded: true)
        #expect(unsetgid.injected && unsetgid.line.secure == false && unsetgid.line.registered == false)
        #expect(try describe(world.appA, preloaded: false).line.registered == false, "no AT_SECURE, no identity")
        chmod(world.appA, 0o2755)
        #expect(try describe(world.appA, preloaded: false).line.registered == true)
        let admitted = try describe(insecure, preloaded: true)
        #expect(admitted.injected && admitted.line.registered == true)
    }

    @Test(
        "Registering an app that must start with AT_SECURE refuses an install that never could, or one setgid to root's group"
    )
    func registrationNeedsASetgidInstall() throws {
        let lab = try WallLab()
        let plain = try lab.install("plain")
        var refusal: EngineError?
        do { try lab.register(plain, identifier: "TEAMP.plain", groups: []) } catch { refusal = error as? EngineError }
        #expect(refusal?.code == .param)
        #expect(refusal?.message.contains(plain) == true && refusal?.message.contains("--allow-insecure-exec") == true)
        guard chmod(plain, 0o2755) == 0 else { throw WallError("cannot chmod \(plain)") }
        #expect(status { try lab.register(plain, identifier: "TEAMP.plain", groups: []) } == .param)
        guard case .apps(let none) = try lab.root.send(.listApps) else {
            throw WallError("listApps answered otherwise")
        }
        #expect(none.isEmpty)
        try lab.register(plain, identifier: "TEAMP.plain", groups: [], allowsInsecureExecution: true)
        let group = try TestGroup()
        let app = try lab.install("app", setgid: group)
        try lab.register(app, identifier: "TEAMA.app", groups: [])
        guard case .apps(let apps) = try lab.root.send(.listApps) else {
            throw WallError("listApps answered otherwise")
        }
        #expect(apps.map(\.path).sorted() == [app, plain].sorted())
    }

    @Test(
        "The user cannot read their own keychain's files in the daemon's state directory, even with its outer directories opened"
    )
    func filesAreTheDaemons() throws {
        let world = try TwoApps()
        try world.add(world.plain, "mine", "secret-mine")
        let keychain = world.lab.daemon.keychainDirectory(of: world.user.uid)
        let files = try FileManager.default.contentsOfDirectory(atPath: keychain.path)
        #expect(files.contains("keychain.db"))
        let owner = try #require(world.lab.daemon.deployedUser).uid
        for name in files {
            let path = keychain.appendingPathComponent(name).path
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_uid == owner && info.st_mode & 0o077 == 0, "\(name)")
            #expect(try world.lab.line(world.plain, as: world.user, ["read-file", path]).errno == EACCES)
        }
        // The state directory (0700) stops the user first; opened up, the keychain's own directory still does,
        // and past that its files (0600) would.
        let state = world.lab.daemon.stateDirectory
        for directory in [state, state.appendingPathComponent("users")] { chmod(directory.path, 0o711) }
        let database = keychain.appendingPathComponent("keychain.db").path
        #expect(try world.lab.line(world.plain, as: world.user, ["read-file", database]).errno == EACCES)
        chmod(keychain.path, 0o711)
        #expect(try world.lab.line(world.plain, as: world.user, ["read-file", database]).errno == EACCES)
        chmod(keychain.path, 0o700)
        #expect(try world.lab.line(world.plain, as: world.user, ["get", "mine"]).secret == "secret-mine")
    }

    /// A shared library whose constructor says it ran (on standard error), built with the C compiler the Swift
    /// toolchain brings.
    static func preloadLibrary(in directory: TemporaryDirectory) throws -> String {
        let compiler = try #require(
            Wall.tool("clang") ?? Wall.tool("cc"), "no C compiler (the Swift toolchain has clang)")
        let source = directory.file("preload.c")
        try Data(
            """
            #include <unistd.h>
            __attribute__((constructor)) static void injected(void) {
                static const char line[] = "keychaind-preload: injected\\n";
                (void)write(2, line, sizeof line - 1);
            }
            """.utf8
        ).write(to: source)
        let library = directory.file("libpreload.so").path
        let built = try Wall.run([compiler, "-shared", "-fPIC", "-o", library, source.path])
        guard built.status == 0 else { throw WallError("cannot build the preload library: \(built.errors)") }
        chmod(library, 0o755)
        return library
    }
}
