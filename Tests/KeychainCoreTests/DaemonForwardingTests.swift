import Foundation
import TestSupport
import Testing

@testable import KeychainCore
@testable import KeychainDaemon
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// A registered service that speaks for other processes (the Secret Service for its D-Bus callers): keychaind
/// decides who the named process is itself, as for a direct client, and takes the word only of a service entitled to
/// give it. Real processes, as in ``DaemonIdentityTests``: the service is a copy of keychaind-probe installed setgid
/// and registered with `com.swift-keychain.forward-callers`; the processes it asks for stay put (`sleep`) while it
/// does.
@Suite(
    "keychaind forwarding: a registered service asks for its callers, and no one else can vouch", .serialized,
    .timeLimit(.minutes(3)), .enabled(if: Wall.canCreateUsers, Wall.needsRoot))
struct DaemonForwardingTests {
    static let groupsA = ["TEAMA.com.example.a"]
    static let unregistered = "swift-keychain.unregistered"

    /// A user with app A (registered), the service (registered, entitled to forward) and an unregistered copy.
    private struct World {
        let lab: WallLab
        let user: TestUser
        let groups: (app: TestGroup, service: TestGroup)
        let appA: String
        let service: String
        let plain: String

        init(serviceAllowsInsecureExecution: Bool = false) throws {
            lab = try WallLab()
            user = try TestUser()
            groups = (try TestGroup(), try TestGroup())
            appA = try lab.install("app-a", setgid: groups.app)
            service = try lab.install("service", setgid: groups.service)
            plain = try lab.install("plain")
            try lab.register(appA, identifier: "TEAMA.com.example.a", groups: DaemonForwardingTests.groupsA)
            try lab.register(
                service, identifier: "org.freedesktop.secrets", groups: ["org.freedesktop.secrets"],
                more: ["com.swift-keychain.forward-callers": true])
        }

        /// `program` started as the user, sleeping, once it runs the program (past setpriv's exec).
        func sleeper(_ program: String, as user: TestUser? = nil) throws -> SpawnedProcess {
            let command = (user ?? self.user).command([program, "-", "sleep", "60"])
            let process = try SpawnedProcess(
                URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
                environment: ["SWIFT_BACKTRACE": "enable=no"])
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/exe")) == program {
                    return process
                }
                usleep(10_000)
            }
            throw WallError("\(program) did not start")
        }

        /// What the daemon says `program` is when it asks for `target` (pid, or pid:start).
        func ask(_ program: String, for target: String, _ command: [String]) throws -> ProbeLine {
            try lab.line(program, as: user, ["for", target] + command)
        }
    }

    @Test("The entitled service asking for app A is answered as app A, and for an unregistered program as one")
    func serviceSpeaksForItsCallers() throws {
        let world = try World()
        let added = try world.lab.line(world.appA, as: world.user, ["add", "of-a", "secret-a"])
        #expect(added.code == nil)
        let plainAdded = try world.lab.line(world.plain, as: world.user, ["add", "of-plain", "secret-plain"])
        #expect(plainAdded.code == nil)
        let appA = try world.sleeper(world.appA)
        let plain = try world.sleeper(world.plain)

        let asA = try world.ask(world.service, for: "\(appA.pid)", ["describe"])
        #expect(asA.registered == true && asA.applicationIdentifier == "TEAMA.com.example.a")
        #expect(asA.accessGroups == Self.groupsA && asA.uid == world.user.uid)
        #expect(try world.ask(world.service, for: "\(appA.pid)", ["get", "of-a"]).secret == "secret-a")
        #expect(try world.ask(world.service, for: "\(appA.pid)", ["get", "of-plain"]).code == .itemNotFound)

        let asPlain = try world.ask(world.service, for: "\(plain.pid)", ["describe"])
        #expect(asPlain.registered == false && asPlain.accessGroups == [Self.unregistered])
        #expect(try world.ask(world.service, for: "\(plain.pid)", ["get", "of-plain"]).secret == "secret-plain")
        #expect(try world.ask(world.service, for: "\(plain.pid)", ["get", "of-a"]).code == .itemNotFound)
        // The service's own identity is untouched by what it asks for others.
        let own = try world.lab.line(world.service, as: world.user, ["describe"])
        #expect(own.applicationIdentifier == "org.freedesktop.secrets")
    }

    @Test(
        "No one but the entitled service can vouch: an unregistered program, a registered app without the entitlement")
    func forgedVouchingRefused() throws {
        let world = try World()
        #expect(try world.lab.line(world.appA, as: world.user, ["add", "of-a", "secret-a"]).code == nil)
        let appA = try world.sleeper(world.appA)
        for impostor in [world.plain, world.appA] {
            let asked = try world.ask(impostor, for: "\(appA.pid)", ["get", "of-a"])
            #expect(asked.code == .missingEntitlement, "\(impostor) vouched for app A: \(asked)")
            #expect(asked.secret == nil)
        }
    }

    @Test(
        "A process named by a stale start time (its pid given to another), one that exited, or another user's is refused"
    )
    func wrongProcessRefused() throws {
        let world = try World()
        #expect(try world.lab.line(world.appA, as: world.user, ["add", "of-a", "secret-a"]).code == nil)
        let appA = try world.sleeper(world.appA)
        let start = try #require(ForwardedProcess.running(pid: appA.pid)?.startTime)
        let stale = try world.ask(world.service, for: "\(appA.pid):\(start + 1)", ["get", "of-a"])
        #expect(stale.code == .missingEntitlement && stale.secret == nil)

        appA.send(SIGKILL)
        _ = appA.wait()
        let gone = try world.ask(world.service, for: "\(appA.pid):\(start)", ["get", "of-a"])
        #expect(gone.code == .missingEntitlement && gone.secret == nil)

        let other = try TestUser()
        let theirs = try world.sleeper(world.plain, as: other)
        let crossed = try world.ask(world.service, for: "\(theirs.pid)", ["describe"])
        #expect(crossed.code == .missingEntitlement, "the service spoke for another user's process: \(crossed)")
    }

    @Test(
        "A process that did not hold the app's group when it reached the service (it exec'd the app since) is not app A"
    )
    func groupsAtConnectionRequired() throws {
        let world = try World()
        #expect(try world.lab.line(world.appA, as: world.user, ["add", "of-a", "secret-a"]).code == nil)
        let appA = try world.sleeper(world.appA)
        let start = try #require(ForwardedProcess.running(pid: appA.pid)?.startTime)
        // As the bus recorded a program that connected with the user's groups and then exec'd app A.
        let before = try world.ask(world.service, for: "\(appA.pid):\(start):\(world.user.gid)", ["describe"])
        #expect(before.registered == false && before.accessGroups == [Self.unregistered], "\(before)")
        let read = try world.ask(world.service, for: "\(appA.pid):\(start):\(world.user.gid)", ["get", "of-a"])
        #expect(read.code == .itemNotFound && read.secret == nil, "\(read)")
        // With the app's group among those it connected with, it is app A.
        let held = try world.ask(
            world.service, for: "\(appA.pid):\(start):\(world.user.gid),\(world.groups.app.gid)", ["get", "of-a"])
        #expect(held.secret == "secret-a", "\(held)")
    }

    @Test("A service entitled to forward must start in secure-execution mode: registering it insecure is refused")
    func insecureForwarderRefused() throws {
        let lab = try WallLab()
        let path = try lab.install("service")
        #expect {
            try lab.register(
                path, identifier: "org.freedesktop.secrets", groups: ["org.freedesktop.secrets"],
                allowsInsecureExecution: true, more: ["com.swift-keychain.forward-callers": true])
        } throws: { error in
            "\(error)".contains("secure-execution")
        }
    }

    @Test("A sandboxed process (its root holds /.flatpak-info) is an app of its own, never the user's shared group")
    func sandboxedCallerWalledOff() throws {
        let world = try World()
        #expect(try world.lab.line(world.plain, as: world.user, ["add", "shared", "secret-shared"]).code == nil)
        let root = try TemporaryDirectory(prefix: "kcw-sandbox")
        chmod(root.url.path, 0o755)
        try Data("[Application]\nname=org.example.Sandboxed\nruntime=runtime/x/y/z\n".utf8).write(
            to: root.file(".flatpak-info"))
        // Root changes the process's root, then becomes the user and stays put: the sandbox as bubblewrap leaves it.
        let script = """
            import os, sys, time
            os.chroot(sys.argv[1]); os.chdir("/")
            os.setgroups([]); os.setgid(int(sys.argv[3])); os.setuid(int(sys.argv[2]))
            time.sleep(60)
            """
        let python = try #require(Wall.tool("python3"), "python3 is not installed")
        let sandboxed = try SpawnedProcess(
            URL(fileURLWithPath: python),
            ["-c", script, root.url.path, "\(world.user.uid)", "\(world.user.gid)"], environment: [:])
        let deadline = ContinuousClock.now + .seconds(10)
        while ProcessFacts.userID(pid: sandboxed.pid) != world.user.uid, ContinuousClock.now < deadline {
            usleep(10_000)
        }
        let described = try world.ask(world.service, for: "\(sandboxed.pid)", ["describe"])
        #expect(described.applicationIdentifier == "swift-keychain.flatpak.org.example.Sandboxed")
        #expect(described.accessGroups == ["swift-keychain.flatpak.org.example.Sandboxed"])
        let shared = try world.ask(world.service, for: "\(sandboxed.pid)", ["get", "shared"])
        #expect(shared.code == .itemNotFound && shared.secret == nil)
        let named = try world.ask(world.service, for: "\(sandboxed.pid)", ["get", "shared", Self.unregistered])
        #expect(named.secret == nil, "the sandboxed app named the shared group and read it")
    }

    @Test(
        "A real bubblewrap sandbox as Flatpak makes it (/.flatpak-info by --ro-bind-data, mode 0600, the user's) is never the user's shared group, though keychaind's own user cannot read the file",
        .enabled(if: Wall.tool("bwrap") != nil, "skipped: bubblewrap is not installed (Debian's bubblewrap)"))
    func bubblewrapSandboxWalledOff() throws {
        let world = try World()
        #expect(try world.lab.line(world.plain, as: world.user, ["add", "shared", "secret-shared"]).code == nil)
        let info = world.lab.apps.file("flatpak-info")
        try Data("[Application]\nname=org.example.Sandboxed\nruntime=runtime/x/y/z\n".utf8).write(to: info)
        chmod(info.path, 0o644)
        let bwrap = try #require(Wall.tool("bwrap"))
        // Flatpak's own arguments for the file: its bytes on a descriptor, bound read-only at /.flatpak-info.
        let script =
            "exec 3<\(info.path); exec \(bwrap) --unshare-user --unshare-pid --die-with-parent --tmpfs / "
            + "--ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 "
            + "--proc /proc --dev /dev --ro-bind-data 3 /.flatpak-info /usr/bin/sleep 60"
        let command = world.user.command(["/bin/sh", "-c", script])
        let sandbox = try SpawnedProcess(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: [:])
        // The sandboxed process: bubblewrap's descendant running sleep.
        var sandboxed: Int32?
        let deadline = ContinuousClock.now + .seconds(10)
        while sandboxed == nil, ContinuousClock.now < deadline {
            sandboxed = Self.descendant(of: sandbox.pid, running: "/usr/bin/sleep")
            if sandboxed == nil { usleep(10_000) }
        }
        let pid = try #require(sandboxed, "the sandbox did not start: \(sandbox.readErrors())")
        var info2 = stat()
        #expect(stat("/proc/\(pid)/root/.flatpak-info", &info2) == 0 && info2.st_mode & 0o777 == 0o600)
        let described = try world.ask(world.service, for: "\(pid)", ["describe"])
        #expect(described.accessGroups != [Self.unregistered], "a Flatpak app was taken for the user's programs")
        #expect(described.applicationIdentifier?.hasPrefix("swift-keychain.flatpak.") == true, "\(described)")
        let shared = try world.ask(world.service, for: "\(pid)", ["get", "shared"])
        #expect(shared.secret == nil, "the sandboxed app read the user's shared group")
    }

    @Test(
        "Documented: a program of the user fakes a sandbox (a user namespace, a root of its own holding a .flatpak-info) and is taken for the app it names, reaching that app's group",
        .enabled(if: Wall.tool("unshare") != nil, "skipped: unshare is not installed"))
    func fakedSandboxTakenForTheApp() throws {
        let world = try World()
        // The app's item, written for a real sandboxed process (root-made, as bubblewrap leaves it).
        let root = try TemporaryDirectory(prefix: "kcw-sandbox")
        chmod(root.url.path, 0o755)
        try Data("[Application]\nname=org.example.Victim\n".utf8).write(to: root.file(".flatpak-info"))
        let python = try #require(Wall.tool("python3"), "python3 is not installed")
        let victim = try SpawnedProcess(
            URL(fileURLWithPath: python),
            [
                "-c",
                "import os, sys, time; os.chroot(sys.argv[1]); os.setgroups([]); os.setgid(int(sys.argv[3])); "
                    + "os.setuid(int(sys.argv[2])); time.sleep(60)",
                root.url.path, "\(world.user.uid)", "\(world.user.gid)",
            ], environment: [:])
        var deadline = ContinuousClock.now + .seconds(10)
        while ProcessFacts.userID(pid: victim.pid) != world.user.uid, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(try world.ask(world.service, for: "\(victim.pid)", ["add", "of-victim", "secret-victim"]).code == nil)
        // The user's own program, unprivileged: a user namespace, a tmpfs root with the system bound in, and a
        // .flatpak-info of its choosing.
        let script =
            "R=$(mktemp -d) && mount -t tmpfs none $R && for d in usr etc proc dev; do mkdir -p $R/$d && "
            + "mount --rbind /$d $R/$d; done && ln -s usr/bin $R/bin && ln -s usr/lib $R/lib && "
            + "ln -s usr/lib64 $R/lib64 && printf '[Application]\\nname=org.example.Victim\\n' > $R/.flatpak-info && "
            + "exec chroot $R /usr/bin/sleep 60"
        let command = world.user.command([try #require(Wall.tool("unshare")), "-Urm", "/bin/sh", "-c", script])
        let faker = try SpawnedProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: [:])
        var fake: Int32?
        deadline = ContinuousClock.now + .seconds(10)
        while fake == nil, ContinuousClock.now < deadline {
            // Its executable's path is one of its own mount namespace: its name tells it runs sleep.
            if (try? String(contentsOfFile: "/proc/\(faker.pid)/comm", encoding: .utf8)) == "sleep\n" {
                fake = faker.pid
            } else {
                usleep(10_000)
            }
        }
        let pid = try #require(fake, "the fake sandbox did not start")
        let described = try world.ask(world.service, for: "\(pid)", ["describe"])
        #expect(described.applicationIdentifier == "swift-keychain.flatpak.org.example.Victim", "\(described)")
        #expect(try world.ask(world.service, for: "\(pid)", ["get", "of-victim"]).secret == "secret-victim")
    }

    /// A descendant of `pid` whose executable is `program`.
    private static func descendant(of pid: Int32, running program: String) -> Int32? {
        let children =
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8))?
            .split(separator: " ").compactMap { Int32($0) } ?? []
        for child in children {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/exe")) == program {
                return child
            }
            if let found = descendant(of: child, running: program) { return found }
        }
        return nil
    }

    @Test("A .flatpak-info names an app only when its id is valid; anything else is the unidentified sandbox")
    func sandboxApplicationIDs() {
        #expect(SandboxedApp.applicationID(in: "[Application]\nname=org.gnome.Evince\n") == "org.gnome.Evince")
        #expect(SandboxedApp.applicationID(in: "[Runtime]\nname=org.x.Y\n") == nil)
        for bad in [
            "org", "org.x", "org..x", "org.x.1y", "org.x.y/../z", "org.x.ÿ", String(repeating: "a.", count: 130) + "b",
        ] {
            #expect(SandboxedApp.applicationID(in: "[Application]\nname=\(bad)\n") == nil, "\(bad)")
        }
        #expect(SandboxedApp(applicationID: nil).caller.accessGroups == ["swift-keychain.flatpak.unidentified"])
    }
}
