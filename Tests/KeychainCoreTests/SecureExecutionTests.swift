import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20, item 2: a registered app installed setgid (so started with `AT_SECURE`) takes nothing from its
/// environment: it talks to keychaind at the default socket only, never falls back to an embedded keychain, and runs
/// pinentry only from `/usr/bin/pinentry`, with its own ids and a clean environment. And no program whose default
/// keychain is keychaind's (keychaind installed: its socket exists) ever moves to an embedded one while the daemon is
/// down or refuses it.
///
/// Real processes: a keychaind, copies of keychaind-probe installed setgid and registered, run as a test user in a
/// mount namespace where `/run/swift-keychain` is the test daemon's directory (``DefaultSocketNamespace``: the
/// library's default socket is a constant, and nothing a process reads moves it).
@Suite(
    "Item 2: a setgid app's keychain and pinentry never come from its environment; no silent embedded fallback",
    .serialized, .timeLimit(.minutes(3)), .enabled(if: Wall.canCreateUsers, Wall.needsRoot),
    .enabled(if: DefaultSocketNamespace.isAvailable, "skipped: this machine cannot make mount namespaces (unshare)"))
struct SecureExecutionTests {
    static let group = "TEAMS.com.example.secure"
    static let defaultSocket = DefaultSocketNamespace.socketDirectory + "/keychaind.sock"

    /// A daemon, a user, and the probe installed setgid to a group of its own and registered.
    private struct World {
        let lab: WallLab
        let user: TestUser
        let appGroup: TestGroup
        let app: String
        let attack: Attack

        init() throws {
            lab = try WallLab()
            user = try TestUser()
            appGroup = try TestGroup()
            app = try lab.install("secure-app", setgid: appGroup)
            try lab.register(app, identifier: SecureExecutionTests.group, groups: [SecureExecutionTests.group])
            attack = try Attack()
        }

        /// Runs `program default arguments…` as the user, with `environment`, where the default socket's directory
        /// is `socketDirectory` (the daemon's unless given) and `/usr/bin/pinentry` is `pinentry` when given.
        func run(
            _ program: String, _ arguments: [String], environment: [String: String], socketDirectory: String? = nil,
            pinentry: String? = nil
        ) throws -> [ProbeLine] {
            let command = DefaultSocketNamespace.command(
                socketDirectory: socketDirectory ?? lab.daemon.directory.url.path, pinentry: pinentry,
                workingDirectory: attack.directory.url.path, user.command([program, "default"] + arguments))
            var process = try SpawnedProcess(
                URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: environment)
            try #require(process.wait(timeout: .seconds(60)) != nil, "\(program) \(arguments) did not finish")
            var output = process.readOutput()
            // ETXTBSY: a copy of the probe this suite just wrote is open for writing, for an instant, in a child
            // another test forked meanwhile; the program never ran, so running it again is safe.
            for _ in 0..<20 where output.isEmpty && process.readErrors().contains("Text file busy") {
                usleep(50_000)
                process = try SpawnedProcess(
                    URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: environment)
                try #require(process.wait(timeout: .seconds(60)) != nil, "\(program) \(arguments) did not finish")
                output = process.readOutput()
            }
            if output.isEmpty {
                // Nothing on standard output is a failure of the probe: say what it wrote instead.
                throw WallError("\(program) \(arguments) printed nothing (errors: \(process.readErrors()))")
            }
            return try output.split(separator: "\n").map { line in
                do {
                    return try JSONDecoder().decode(ProbeLine.self, from: Data(line.utf8))
                } catch {
                    throw WallError("\(program) printed \(line) (errors: \(process.readErrors()))")
                }
            }
        }

        /// The one line a single command printed.
        func line(
            _ program: String, _ arguments: [String], environment: [String: String], socketDirectory: String? = nil,
            pinentry: String? = nil
        ) throws -> ProbeLine {
            let lines = try run(
                program, arguments, environment: environment, socketDirectory: socketDirectory, pinentry: pinentry)
            try #require(lines.count == 1, "\(program) \(arguments) printed \(lines.count) lines")
            return lines[0]
        }
    }

    @Test(
        "A setgid registered app run with a hostile environment (fake socket, attacker's KEYCHAIN_HOME, HOME, XDG_DATA_HOME, PINENTRY_PROGRAM and PATH gadgets) touches none of them"
    )
    func hostileEnvironment() throws {
        let world = try World()
        let attack = world.attack
        let described = try world.line(world.app, ["describe"], environment: attack.environment)
        #expect(described.storage == "keychaind at \(Self.defaultSocket)", "\(described)")
        #expect(described.secure == true && described.registered == true, "\(described)")
        let added = try world.line(world.app, ["add", "app-secret", "s3cret"], environment: attack.environment)
        #expect(added.code == nil && added.storage == "keychaind at \(Self.defaultSocket)", "\(added)")
        #expect(try world.lab.groups(of: world.user) == ["app-secret": Self.group])
        let got = try world.line(world.app, ["get", "app-secret"], environment: attack.environment)
        #expect(got.secret == "s3cret", "\(got)")
        // No terminal: the prompt would go to pinentry, which is never the environment's.
        let prompted = try world.line(world.app, ["prompt"], environment: attack.environment)
        #expect(prompted.outcome != "entered", "\(prompted)")
        #expect(attack.gadgetRuns.isEmpty, "a pinentry gadget ran: \(attack.gadgetRuns)")
        #expect(attack.fakeDaemonConnections == 0, "the app connected to KEYCHAIN_DAEMON")
        let created = try attack.createdFiles()
        #expect(created.isEmpty, "the app wrote \(created)")
    }

    @Test(
        "With the daemon down, a setgid app fails with errSecNotAvailable naming the default socket, and creates no embedded keychain"
    )
    func daemonDown() throws {
        let world = try World()
        let attack = world.attack
        let empty = try TemporaryDirectory(prefix: "kcw-run")
        chmod(empty.url.path, 0o755)
        let quiet = ["PATH": "/usr/bin:/bin", "HOME": attack.home.path, "SWIFT_BACKTRACE": "enable=no"]
        for environment in [attack.environment, quiet] {
            let added = try world.line(
                world.app, ["add", "app-secret", "s3cret"], environment: environment, socketDirectory: empty.url.path)
            #expect(added.code == .notAvailable, "\(added)")
            #expect(added.message?.contains(Self.defaultSocket) == true, "\(added)")
        }
        #expect(attack.fakeDaemonConnections == 0, "the app connected to KEYCHAIN_DAEMON")
        let created = try attack.createdFiles()
        #expect(created.isEmpty, "the app wrote \(created)")
    }

    /// The pinentry mounted over `/usr/bin/pinentry` is the probe itself, which records how it started: a shell
    /// script would not do, since the shell drops an effective group that differs from the real one by itself.
    @Test(
        "A setgid app's pinentry is /usr/bin/pinentry, run with the user's own group (POSIX_SPAWN_RESETIDS) and a clean environment",
        .enabled(
            if: DefaultSocketNamespace.hasSystemPinentry,
            "skipped: /usr/bin/pinentry is not installed (pinentry-curses)"))
    func fixedPinentry() throws {
        let world = try World()
        let attack = world.attack
        let recorder = try world.lab.install("pinentry")
        let prompted = try world.line(world.app, ["prompt"], environment: attack.environment, pinentry: recorder)
        #expect(prompted.outcome == "entered" && prompted.length == 7, "\(prompted)")
        #expect(attack.gadgetRuns.isEmpty, "a pinentry gadget ran: \(attack.gadgetRuns)")
        let recorded = try String(contentsOf: attack.recording, encoding: .utf8)
            .split(separator: "\n").map(String.init)
        // Its effective and real group are the user's: the app's setgid group is what lends its identity.
        #expect(
            recorded.contains("egid=\(world.user.gid)") && recorded.contains("gid=\(world.user.gid)"), "\(recorded)")
        #expect(!recorded.contains { $0.hasPrefix("groups=") && $0.contains("\(world.appGroup.gid)") }, "\(recorded)")
        let variables = recorded.filter { !["egid=", "gid=", "groups="].contains(where: $0.hasPrefix) }
        #expect(variables.contains("PATH=/usr/bin:/bin"), "\(variables)")
        #expect(variables.contains("DISPLAY=:99"), "the display is passed on: \(variables)")
        for name in ["KEYCHAIN_", "PINENTRY_PROGRAM", "HOME=", "XDG_DATA_HOME", "LD_", "GCONV_PATH"] {
            #expect(!variables.contains { $0.hasPrefix(name) }, "\(name) reached pinentry: \(variables)")
        }
    }

    @Test(
        "A plain program with keychaind installed but down or refusing fails with errSecNotAvailable naming the socket, writes nothing to ~/.local/share, and succeeds once the daemon is back"
    )
    func plainProgramNeverFallsBack() throws {
        let world = try World()
        let plain = try world.lab.install("plain")
        let home = world.attack.home
        world.lab.daemon.kill()  // its socket stays: installed, and down
        let command = DefaultSocketNamespace.command(
            socketDirectory: world.lab.daemon.directory.url.path,
            world.user.command([plain, "default", "session"]))
        let session = try PipeSession(
            command[0], Array(command.dropFirst()),
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.path, "SWIFT_BACKTRACE": "enable=no"])
        func ask(_ line: String) throws -> ProbeLine {
            session.send(line)
            return try JSONDecoder().decode(ProbeLine.self, from: Data(try session.readLine(seconds: 60).utf8))
        }
        let down = try ask("add plain-secret s3cret")
        #expect(down.code == .notAvailable && down.message?.contains(Self.defaultSocket) == true, "\(down)")
        let refusing = try RefusingListener(at: world.lab.daemon.socketPath)
        let refused = try ask("get plain-secret")
        #expect(refused.code == .notAvailable && refused.message?.contains(Self.defaultSocket) == true, "\(refused)")
        #expect(refusing.connections > 0, "the program never asked the refusing daemon")
        refusing.stop()
        try world.lab.daemon.restart()
        let added = try ask("add plain-secret s3cret")
        #expect(added.code == nil && added.storage == "keychaind at \(Self.defaultSocket)", "\(added)")
        #expect(try ask("get plain-secret").secret == "s3cret")
        _ = try session.finish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty, "written in ~")
        #expect(try world.lab.groups(of: world.user) == ["plain-secret": "swift-keychain.unregistered"])
    }

    @Test("An ordinary program's explicit choices still hold: KEYCHAIN_HOME and KEYCHAIN_DAEMON=off are embedded")
    func explicitChoicesStillHold() throws {
        let world = try World()
        let plain = try world.lab.install("plain")
        let attack = world.attack
        let base = ["PATH": "/usr/bin:/bin", "HOME": attack.home.path, "SWIFT_BACKTRACE": "enable=no"]
        // A directory of the user's own making (the attacker's 0777 one would be refused as writable by others).
        let own = attack.home.appendingPathComponent("own-keychain").path
        let named = try world.line(
            plain, ["add", "here", "s"], environment: base.merging(["KEYCHAIN_HOME": own]) { $1 })
        #expect(named.code == nil && named.storage == "embedded (\(own))", "\(named)")
        let off = try world.line(
            plain, ["add", "there", "s"], environment: base.merging(["KEYCHAIN_DAEMON": "off"]) { $1 })
        #expect(off.code == nil && off.storage?.contains(".local/share/swift-keychain") == true, "\(off)")
        let daemon = try world.line(plain, ["add", "served", "s"], environment: base)
        #expect(daemon.storage == "keychaind at \(Self.defaultSocket)", "\(daemon)")
    }
}

/// What an attacker of the same user prepares for a setgid app: a fake daemon socket that counts connections, a
/// keychain directory, home and data directories (all writable by the app, so a fallback would show), and pinentry
/// gadgets that record that they ran.
private final class Attack {
    let directory: TemporaryDirectory
    private let fakeDaemon: RefusingListener
    var home: URL { directory.url.appendingPathComponent("home", isDirectory: true) }
    var keychain: URL { directory.url.appendingPathComponent("keychain", isDirectory: true) }
    var data: URL { directory.url.appendingPathComponent("data", isDirectory: true) }
    private var gadgets: URL { directory.url.appendingPathComponent("gadgets", isDirectory: true) }
    /// Where the recording pinentry (the probe run as `pinentry`, in this directory) writes what it saw.
    var recording: URL { directory.url.appendingPathComponent("pinentry-record") }
    private var gadgetLog: URL { directory.url.appendingPathComponent("gadget-runs") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "kcw-attack")
        chmod(directory.url.path, 0o777)
        fakeDaemon = try RefusingListener(at: directory.file("fake.sock").path)
        for folder in [home, keychain, data, gadgets] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o777)
        }
        let gadget = "#!/bin/sh\necho \"$0 ran as $(id -u):$(id -g)\" >> \(gadgetLog.path)\nexit 1\n"
        for path in [gadgets.appendingPathComponent("pinentry"), directory.file("gadget")] {
            try ExecutableCopy.write(Data(gadget.utf8), to: path.path)
        }
        let entitlements: [String: Any] = [
            "application-identifier": SecureExecutionTests.group,
            "keychain-access-groups": [SecureExecutionTests.group],
        ]
        try PropertyListSerialization.data(fromPropertyList: entitlements, format: .xml, options: 0)
            .write(to: directory.file("app.entitlements"))
    }

    /// The hostile environment.
    var environment: [String: String] {
        [
            "KEYCHAIN_DAEMON": directory.file("fake.sock").path, "KEYCHAIN_HOME": keychain.path, "HOME": home.path,
            "XDG_DATA_HOME": data.path, "PINENTRY_PROGRAM": directory.file("gadget").path,
            "PATH": "\(gadgets.path):/usr/bin:/bin", "KEYCHAIN_ENTITLEMENTS": directory.file("app.entitlements").path,
            "LD_LIBRARY_PATH": gadgets.path, "GCONV_PATH": gadgets.path, "DISPLAY": ":99",
            "SWIFT_BACKTRACE": "enable=no",
        ]
    }

    /// What the gadgets recorded, one line per run.
    var gadgetRuns: [String] {
        ((try? String(contentsOf: gadgetLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// How many connections reached the fake daemon.
    var fakeDaemonConnections: Int { fakeDaemon.connections }

    /// Files the app made in the attacker's directories.
    func createdFiles() throws -> [String] {
        try [home, keychain, data].flatMap { try FileManager.default.contentsOfDirectory(atPath: $0.path) }
    }
}

/// A listener on a socket path that counts and closes every connection at once: a daemon that refuses every
/// client (or an attacker's that only wants to know who came).
private final class RefusingListener: Sendable {
    private let socket: SeqPacketSocket
    private let counter = Counter()
    private let stopped = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    private final class Counter: Sendable {
        let count = Atomic<Int>(0)
    }

    init(at path: String) throws {
        socket = try SeqPacketSocket.listen(at: path, mode: 0o666)
        let (socket, counter, finished) = (self.socket, self.counter, self.finished)
        Thread {
            while let client = try? socket.accept() {
                counter.count.add(1, ordering: .relaxed)
                client.close()
            }
            finished.signal()
        }.start()
    }

    deinit { stop() }

    /// How many connections came.
    var connections: Int { counter.count.load(ordering: .relaxed) }

    /// Stops listening: the accepting thread wakes (a shut-down listener fails `accept`) and ends before the
    /// descriptor is closed.
    func stop() {
        guard stopped.withLock({ stopped in !stopped ? (stopped = true, true).1 : false }) else { return }
        socket.shutDown()
        finished.wait()
        socket.close()
    }
}
