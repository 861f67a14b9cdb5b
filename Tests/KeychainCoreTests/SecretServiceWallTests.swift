import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// keychaind's wall through D-Bus: the Secret Service, registered with `com.swift-keychain.forward-callers` and
/// installed setgid as deployed, asks keychaind for each caller, so a registered app's items are out of reach of the
/// user's other programs whether they ask through D-Bus or not. Real processes in a mount namespace where
/// `/run/swift-keychain` is the test daemon's and `/run/user/UID/bus` a private bus of the test user's: a setgid
/// service takes neither its keychain nor its bus from the environment.
@Suite(
    "The Secret Service behind keychaind's wall: each D-Bus caller is who keychaind says its process is",
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Wall.canCreateUsers, Wall.needsRoot),
    .enabled(if: DefaultSocketNamespace.isAvailable, "skipped: this machine cannot make mount namespaces (unshare)"),
    .enabled(
        if: ["dbus-daemon", "busctl", "secret-tool"].allSatisfy { Wall.tool($0) != nil },
        "skipped: dbus-daemon, busctl or secret-tool is missing (scripts/bootstrap installs dbus-daemon, systemd and libsecret-tools)"
    ))
struct SecretServiceWallTests {
    /// A deployed daemon, a test user, the service installed setgid and registered to forward its callers, and
    /// copies of busctl registered as apps.
    struct BusLab {
        let lab: WallLab
        let user: TestUser
        let service: String
        let busctl: String
        /// The groups the copies are setgid to, removed with the lab.
        private let groups = GroupList()

        init() throws {
            lab = try WallLab()
            user = try TestUser()
            busctl = try #require(Wall.tool("busctl"))
            let group = try TestGroup()
            groups.add(group)
            service = try lab.install(
                "keychain-secret-service", from: BuiltExecutable.named("keychain-secret-service").path,
                setgid: group)
            try lab.register(
                service, identifier: "org.freedesktop.secrets", groups: ["org.freedesktop.secrets"],
                more: ["com.swift-keychain.forward-callers": true])
        }

        /// A copy of `program` registered as an app with `groups` (setgid to a group of its own).
        func registeredCopy(_ program: String, as name: String, identifier: String, groups appGroups: [String]) throws
            -> String
        {
            let path = try lab.install(name, from: program, setgid: try madeGroup())
            try lab.register(path, identifier: identifier, groups: appGroups)
            return path
        }

        private func madeGroup() throws -> TestGroup {
            let group = try TestGroup()
            groups.add(group)
            return group
        }

        var bus: String { "unix:path=/run/user/\(user.uid)/bus" }
        var switchUser: String { user.command([]).joined(separator: " ") }

        /// Starts the user's bus and the service in the namespace (the service told a bogus bus and keychain: set up
        /// as deployed, it must use the user's own), runs `clients` (shell text printing `LABEL: …` lines) as the
        /// user, and returns the labelled lines. `busPrefix` goes before the bus daemon's command (an environment for
        /// it, say).
        func run(_ clients: String, busPrefix: String = "") throws -> (lines: [String: String], context: String) {
            let run = "/run/user/\(user.uid)"
            let script = """
                mkdir -p \(run) && chown \(user.uid):\(user.gid) \(run) && chmod 700 \(run) || exit 1
                \(switchUser) \(busPrefix) \(Wall.tool("dbus-daemon") ?? "dbus-daemon") --session --address=\(bus) --nofork \
                  --nopidfile >/dev/null 2>&1 &
                BUS=$!
                i=0; while [ ! -S \(run)/bus ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
                \(switchUser) env -i SWIFT_BACKTRACE=enable=no DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
                  KEYCHAIN_HOME=/nonexistent \(service) 2>\(lab.apps.url.path)/service.log &
                SERVICE=$!
                i=0; while ! \(switchUser) \(busctl) --address=\(bus) status org.freedesktop.secrets >/dev/null 2>&1 \
                  && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
                \(clients)
                kill -9 $SERVICE $BUS
                wait
                """
            let command = DefaultSocketNamespace.command(
                socketDirectory: lab.daemon.directory.url.path, ["/bin/sh", "-c", script])
            let result = try Wall.run(command)
            let log = (try? String(contentsOf: lab.apps.file("service.log"), encoding: .utf8)) ?? ""
            var lines: [String: String] = [:]
            for line in result.output.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                lines[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return (lines, "output: \(result.output) errors: \(result.errors) service: \(log)")
        }
    }

    @Test(
        "An unregistered program finds only the shared group's items through D-Bus, app A only its own; a path to app A's item reads nothing for another"
    )
    func registeredAppWalledOffThroughDBus() throws {
        let world = try BusLab()
        let probeGroup = try TestGroup()
        let appA = try world.lab.install("app-a", setgid: probeGroup)
        let plain = try world.lab.install("plain")
        try world.lab.register(appA, identifier: "TEAMA.com.example.a", groups: ["TEAMA.com.example.a"])
        let busctlA = try world.registeredCopy(
            world.busctl, as: "busctl-a", identifier: "TEAMA.com.example.a", groups: ["TEAMA.com.example.a"])
        #expect(try world.lab.line(appA, as: world.user, ["add", "of-a", "secret-a"]).code == nil)
        #expect(try world.lab.line(plain, as: world.user, ["add", "of-plain", "secret-plain"]).code == nil)

        let search =
            "call org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service "
            + "SearchItems 'a{ss}' 1 service probe"
        let (lines, context) = try world.run(
            """
            A=$(\(world.switchUser) \(busctlA) --address=\(world.bus) \(search) 2>&1)
            echo "A: $A"
            echo "PLAIN: $(\(world.switchUser) \(world.busctl) --address=\(world.bus) \(search) 2>&1)"
            echo "TOOL: $(\(world.switchUser) env DBUS_SESSION_BUS_ADDRESS=\(world.bus) secret-tool search --all \
              service probe 2>&1 | tr '\\n' ' ')"
            APATH=$(echo "$A" | grep -o '"/org[^"]*"' | head -1 | tr -d '"')
            echo "STEAL: $(\(world.switchUser) \(world.busctl) --address=\(world.bus) get-property \
              org.freedesktop.secrets "$APATH" org.freedesktop.Secret.Item Attributes 2>&1)"
            """)
        // Each SearchItems reply is `aoao N paths… M paths…`: the unlocked items first.
        let a = try #require(lines["A"], "\(context)")
        let plainSeen = try #require(lines["PLAIN"], "\(context)")
        #expect(a.hasPrefix("aoao 1 "), "app A through D-Bus: \(context)")
        #expect(plainSeen.hasPrefix("aoao 1 "), "the unregistered program through D-Bus: \(context)")
        #expect(a != plainSeen, "app A and the unregistered program found the same item: \(context)")
        let tool = try #require(lines["TOOL"], "\(context)")
        #expect(tool.contains("secret = secret-plain"), "secret-tool: \(context)")
        #expect(!tool.contains("secret-a"), "secret-tool read app A's secret: \(context)")
        let steal = try #require(lines["STEAL"], "\(context)")
        #expect(!steal.contains("of-a"), "an unregistered program read app A's item by its path: \(context)")
    }

    /// Asks the Secret portal's backend for `argv[2]`'s secret on the bus `argv[1]`, passing a pipe as
    /// xdg-desktop-portal does; prints the secret in hex, or the error. (busctl cannot pass a descriptor.)
    static let retrieveScript = """
        import os, sys
        from jeepney import DBusAddress, new_method_call, MessageType, HeaderFields
        from jeepney.io.blocking import open_dbus_connection
        connection = open_dbus_connection(bus=sys.argv[1], enable_fds=True)
        reading, writing = os.pipe()
        portal = DBusAddress("/org/freedesktop/portal/desktop", bus_name="org.freedesktop.secrets",
                             interface="org.freedesktop.impl.portal.Secret")
        call = new_method_call(portal, "RetrieveSecret", "osha{sv}",
                               ("/org/freedesktop/portal/desktop/request/1_1/t", sys.argv[2], writing, {}))
        reply = connection.send_and_get_reply(call, timeout=10)
        os.close(writing)
        if reply.header.message_type == MessageType.error:
            print("ERROR", reply.header.fields.get(HeaderFields.error_name), reply.body)
        else:
            print(os.read(reading, 4096).hex(), reply.body[0])
        """

    @Test(
        "The Secret portal answers only xdg-desktop-portal (registered with the portal's group): one secret per app id, none for an empty id or another caller",
        .enabled(
            if: DefaultSocketNamespace.tool("python3") != nil
                && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jeepney"),
            "skipped: Debian's python3 with jeepney is not installed (scripts/bootstrap installs python3-jeepney)")
    )
    func portalSecretOnlyForThePortal() throws {
        let world = try BusLab()
        let python = URL(fileURLWithPath: try #require(DefaultSocketNamespace.tool("python3")))
            .resolvingSymlinksInPath().path
        let portal = try world.registeredCopy(
            python, as: "xdg-desktop-portal", identifier: "org.freedesktop.portal.Desktop",
            groups: ["swift-keychain.portal"])
        let appA = try world.registeredCopy(
            python, as: "python-a", identifier: "TEAMA.com.example.a", groups: ["TEAMA.com.example.a"])
        let script = world.lab.apps.file("retrieve.py").path
        try Data(Self.retrieveScript.utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o644)
        func retrieve(_ program: String, _ id: String) -> String {
            "$(\(world.switchUser) \(program) \(script) \(world.bus) '\(id)' 2>&1 | tr '\\n' ' ')"
        }
        let (lines, context) = try world.run(
            """
            echo "X1: \(retrieve(portal, "org.example.X"))"
            echo "X2: \(retrieve(portal, "org.example.X"))"
            echo "Y: \(retrieve(portal, "org.example.Y"))"
            echo "EMPTY: \(retrieve(portal, ""))"
            echo "PLAIN: \(retrieve(python, "org.example.X"))"
            echo "APP: \(retrieve(appA, "org.example.X"))"
            """)
        func secret(_ label: String) throws -> String {
            let line = try #require(lines[label], "\(context)")
            let parts = line.split(separator: " ")
            #expect(parts.count == 2 && parts[0].count == 128 && parts[1] == "0", "\(label): \(context)")
            return String(parts.first ?? "")
        }
        let x1 = try secret("X1")
        #expect(try secret("X2") == x1, "the portal secret of one app changed: \(context)")
        #expect(try secret("Y") != x1, "two apps were given the same secret: \(context)")
        #expect(lines["EMPTY"]?.contains("AccessDenied") == true, "an empty app id: \(context)")
        for caller in ["PLAIN", "APP"] {
            let answer = try #require(lines[caller], "\(context)")
            #expect(answer.contains("AccessDenied"), "\(caller) was given an app's portal secret: \(context)")
            #expect(!answer.contains(x1), "\(caller) read the portal secret: \(context)")
        }
    }
    /// Lists the collections on the bus `argv[1]`, stores an item in each, reads each back by a search of the
    /// whole service, then asks for a new collection; prints one labelled line per step.
    static let collectionsScript = """
        import sys, secretstorage
        connection = secretstorage.dbus_init()
        collections = list(secretstorage.get_all_collections(connection))
        print("NAMES:", " ".join(sorted(c.collection_path.rsplit("/", 1)[1] for c in collections)))
        for c in collections:
            name = c.collection_path.rsplit("/", 1)[1]
            try:
                c.create_item("in " + name, {"probe": sys.argv[1], "where": name}, ("secret-" + name).encode())
                print("STORED-" + name + ":", "ok")
            except Exception as error:
                print("STORED-" + name + ":", type(error).__name__, error)
        found = secretstorage.search_items(connection, {"probe": sys.argv[1]})
        print("FOUND:", " ".join(sorted(i.get_secret().decode() for i in found)))
        try:
            secretstorage.create_collection(connection, "Work")
            print("CREATE: made")
        except Exception as error:
            print("CREATE:", type(error).__name__, str(error).replace("\\n", " "))
        """

    @Test(
        "Behind the wall a caller's collections are its groups: an app with two gets both and stores in each, an unregistered program only login; a new collection is refused saying why",
        .enabled(
            if: DefaultSocketNamespace.tool("python3") != nil
                && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
            "skipped: Debian's python3 with secretstorage is not installed (scripts/bootstrap installs python3-secretstorage)"
        )
    )
    func collectionsAreTheCallersGroups() throws {
        let world = try BusLab()
        let python = URL(fileURLWithPath: try #require(DefaultSocketNamespace.tool("python3")))
            .resolvingSymlinksInPath().path
        let appB = try world.registeredCopy(
            python, as: "python-b", identifier: "TEAMB.com.example.b", groups: ["TEAMB.com.example.b", "TEAMB.shared"])
        let script = world.lab.apps.file("list_collections.py").path
        try Data(Self.collectionsScript.utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o644)
        let (lines, context) = try world.run(
            """
            \(world.switchUser) env DBUS_SESSION_BUS_ADDRESS=\(world.bus) \(appB) \(script) b 2>&1 | sed 's/^/B-/'
            \(world.switchUser) env DBUS_SESSION_BUS_ADDRESS=\(world.bus) \(python) \(script) plain 2>&1 \
              | sed 's/^/PLAIN-/'
            """)
        // The group TEAMB.shared as a collection: `G`, its letters, its dot as `_2E`.
        let shared = "GTEAMB_2Eshared"
        #expect(lines["B-NAMES"] == "\(shared) login", "app B's collections: \(context)")
        #expect(lines["B-STORED-login"] == "ok" && lines["B-STORED-\(shared)"] == "ok", "app B stores: \(context)")
        #expect(lines["B-FOUND"] == "secret-\(shared) secret-login", "app B finds both: \(context)")
        #expect(lines["PLAIN-NAMES"] == "login", "the unregistered program's collections: \(context)")
        #expect(lines["PLAIN-FOUND"] == "secret-login", "the unregistered program finds: \(context)")
        for caller in ["B", "PLAIN"] {
            let create = try #require(lines["\(caller)-CREATE"], "\(context)")
            #expect(create.contains("access groups it is entitled to"), "\(caller) created a collection: \(context)")
        }
    }
}

/// Groups kept alive as long as their holder (each is removed when released).
private final class GroupList: @unchecked Sendable {
    // @unchecked: used by one test at a time.
    private var groups: [TestGroup] = []
    func add(_ group: TestGroup) { groups.append(group) }
}
