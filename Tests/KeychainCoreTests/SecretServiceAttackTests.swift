import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Attacks on the Secret Service's wall by a hostile program of the same user, on the private bus of
/// ``SecretServiceWallTests/BusLab`` (the service installed setgid and registered to forward its callers, keychaind as
/// deployed). Each test runs the attack with real processes and asserts the specific refusal.
@Suite(
    "Attacks on the Secret Service's wall by another program of the user",
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Wall.canCreateUsers, Wall.needsRoot),
    .enabled(if: DefaultSocketNamespace.isAvailable, "skipped: this machine cannot make mount namespaces (unshare)"),
    .enabled(
        if: ["dbus-daemon", "busctl"].allSatisfy { Wall.tool($0) != nil }
            && DefaultSocketNamespace.tool("python3") != nil
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jeepney")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
        "skipped: dbus-daemon, busctl or Debian's python3 with jeepney and secretstorage is missing"))
struct SecretServiceAttackTests {
    /// A lab with app A's item and an unregistered program's item, both of service `probe`, and `scripts` written
    /// where the user can read them.
    private struct Lab {
        let world: SecretServiceWallTests.BusLab
        let python: String
        let appA: String
        let probeA: String

        init(scripts: [String: String]) throws {
            world = try SecretServiceWallTests.BusLab()
            python =
                URL(fileURLWithPath: try #require(DefaultSocketNamespace.tool("python3")))
                .resolvingSymlinksInPath().path
            let groups = ["TEAMA.com.example.a"]
            probeA = try world.registeredCopy(
                BuiltExecutable.named("keychaind-probe").path, as: "app-a", identifier: "TEAMA.com.example.a",
                groups: groups)
            appA = try world.registeredCopy(python, as: "python-a", identifier: "TEAMA.com.example.a", groups: groups)
            let plain = try world.lab.install("plain")
            #expect(try world.lab.line(probeA, as: world.user, ["add", "of-a", "secret-a"]).code == nil)
            #expect(try world.lab.line(plain, as: world.user, ["add", "of-plain", "secret-plain"]).code == nil)
            for (name, text) in scripts {
                let path = world.lab.apps.file(name).path
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                chmod(path, 0o644)
            }
        }

        func script(_ name: String) -> String { world.lab.apps.file(name).path }

        /// Shell text running `program arguments…` as the user, its output on one line.
        func asUser(_ program: String, _ arguments: [String]) -> String {
            "$(\(world.switchUser) \(([program] + arguments).joined(separator: " ")) 2>&1 | tr '\\n' ' ')"
        }
    }

    /// App A reads its own item through secretstorage, which opens a Diffie-Hellman session (the secret crosses the
    /// bus encrypted); prints only how many items it found.
    static let victimScript = """
        import sys, time, secretstorage
        from jeepney.io.blocking import open_dbus_connection
        connection = open_dbus_connection(bus=sys.argv[1])
        items = list(secretstorage.search_items(connection, {"service": "probe"}))
        secrets = [item.get_secret() for item in items]
        print("victim read", len(secrets), "items")
        time.sleep(2)
        """

    /// The thief: watches the bus as any program of the bus's user may (BecomeMonitor), starts app A (`argv[2]`
    /// running `argv[3]`), keeps the encrypted reply to A's GetSecret, then hands A's session path, IV and
    /// ciphertext to the service as the secret of an item of its own and reads that item back in a plain session.
    static let thiefScript = """
        import sys, time, subprocess
        from jeepney import DBusAddress, new_method_call, MessageType, HeaderFields
        from jeepney.io.blocking import open_dbus_connection
        bus, victim, victim_script = sys.argv[1:4]
        monitor = open_dbus_connection(bus=bus)
        driver = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                             interface="org.freedesktop.DBus.Monitoring")
        monitor.send_and_get_reply(new_method_call(driver, "BecomeMonitor", "asu", ([], 0)), timeout=10)
        run = subprocess.Popen([victim, victim_script, bus])
        captured = None
        deadline = time.time() + 15
        while captured is None and time.time() < deadline:
            try:
                message = monitor.receive(timeout=deadline - time.time())
            except TimeoutError:
                break
            if (message.header.message_type == MessageType.method_return
                    and message.header.fields.get(HeaderFields.signature) == "(oayays)"):
                captured = message.body[0]
        run.wait()
        if captured is None:
            print("NOTHING SEEN"); sys.exit(0)
        session, parameters, value, _ = captured
        print("SEEN", session, len(value), "encrypted bytes")
        connection = open_dbus_connection(bus=bus)
        name = "org.freedesktop.secrets"
        service = DBusAddress("/org/freedesktop/secrets", bus_name=name, interface="org.freedesktop.Secret.Service")
        plain = connection.send_and_get_reply(
            new_method_call(service, "OpenSession", "sv", ("plain", ("s", ""))), timeout=10).body[1]
        collection = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=name,
                                 interface="org.freedesktop.Secret.Collection")
        properties = {"org.freedesktop.Secret.Item.Label": ("s", "stolen"),
                      "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "thief", "username": "x"})}
        created = connection.send_and_get_reply(new_method_call(
            collection, "CreateItem", "a{sv}(oayays)b",
            (properties, (session, parameters, value, "text/plain"), True)), timeout=10)
        if created.header.message_type == MessageType.error:
            print("REFUSED", created.header.fields.get(HeaderFields.error_name), created.body); sys.exit(0)
        item = DBusAddress(created.body[0], bus_name=name, interface="org.freedesktop.Secret.Item")
        secret = connection.send_and_get_reply(new_method_call(item, "GetSecret", "o", (plain,)), timeout=10)
        print("STOLEN", bytes(secret.body[0][2]).decode(errors="replace"))
        """

    @Test(
        "A session is its opener's: another program handing the service app A's session path, IV and ciphertext (seen on the bus) is refused, so the service never decrypts A's secret for it"
    )
    func sessionOfAnotherConnectionRefused() throws {
        let lab = try Lab(scripts: ["victim.py": Self.victimScript, "thief.py": Self.thiefScript])
        let (lines, context) = try lab.world.run(
            """
            echo "THIEF: \(lab.asUser(lab.python, [lab.script("thief.py"), lab.world.bus, lab.appA, lab.script("victim.py")]))"
            """)
        let thief = try #require(lines["THIEF"], "\(context)")
        // The attack ran: app A read its item and the thief saw the encrypted reply go by.
        #expect(thief.contains("victim read 1 items"), "\(context)")
        #expect(thief.contains("SEEN /org/freedesktop/secrets/session/"), "\(context)")
        #expect(!thief.contains("secret-a"), "another program decrypted app A's secret through A's session: \(context)")
        #expect(
            thief.contains("REFUSED org.freedesktop.Secret.Error.NoSession"),
            "another connection's session was not refused: \(context)")
    }

    /// Connects to the bus as an unregistered program, forks a child that keeps the connection, and execs app A
    /// (`argv[2]`, a registered setgid program that then sleeps): the bus still names this pid, now app A's. The
    /// child, once the pid runs A, asks through the connection for the items of service `probe`.
    static let execRaceScript = """
        import os, sys, time, secretstorage
        from jeepney.io.blocking import open_dbus_connection
        bus, app = sys.argv[1:3]
        connection = open_dbus_connection(bus=bus)
        # Closed on exec: the child reads its end's EOF once the parent runs the app.
        execed, held = os.pipe()
        if os.fork() == 0:
            os.close(held)
            os.read(execed, 1)
            time.sleep(0.3)
            try:
                items = list(secretstorage.search_items(connection, {"service": "probe"}))
                print("READ", [item.get_secret().decode() for item in items])
            except Exception as error:
                print("REFUSED", type(error).__name__, error)
            os._exit(0)
        os.execv(app, [app, "-", "sleep", "3"])
        """

    @Test(
        "A program that connects to the bus and then execs a registered app (its pid is now the app's) is taken for what it was when it connected, not for the app"
    )
    func execAfterConnectingRefused() throws {
        let lab = try Lab(scripts: ["race.py": Self.execRaceScript])
        let (lines, context) = try lab.world.run(
            """
            echo "RACE: \(lab.asUser(lab.python, [lab.script("race.py"), lab.world.bus, lab.probeA]))"
            """)
        let race = try #require(lines["RACE"], "\(context)")
        #expect(!race.contains("secret-a"), "the child read app A's secret through the connection: \(context)")
        // Taken for what it was when it connected: an unregistered program, which reads the shared group.
        #expect(race.contains("READ ['secret-plain']"), "\(context)")
    }

    /// App A's view of its item of service `probe`: its path, and its secret (`argv[2]` = `secret`) or only the
    /// path.
    static let ownerScript = """
        import sys, secretstorage
        from jeepney.io.blocking import open_dbus_connection
        connection = open_dbus_connection(bus=sys.argv[1])
        items = list(secretstorage.search_items(connection, {"service": "probe"}))
        if sys.argv[2] == "secret":
            print([(item.get_label(), item.get_secret().decode()) for item in items])
        else:
            print(items[0].item_path if items else "none")
        """

    /// Another program given app A's item path (`argv[2]`): every way the API reaches an item by its path, and a
    /// search naming A's item's exact attributes. Prints one `NAME: outcome` per try.
    static let foreignPathScript = """
        import sys
        from jeepney import DBusAddress, new_method_call, MessageType, HeaderFields
        from jeepney.io.blocking import open_dbus_connection
        bus, path = sys.argv[1:3]
        connection = open_dbus_connection(bus=bus)
        name = "org.freedesktop.secrets"
        service = DBusAddress("/org/freedesktop/secrets", bus_name=name, interface="org.freedesktop.Secret.Service")
        item = DBusAddress(path, bus_name=name, interface="org.freedesktop.Secret.Item")
        properties = DBusAddress(path, bus_name=name, interface="org.freedesktop.DBus.Properties")
        def call(label, message):
            reply = connection.send_and_get_reply(message, timeout=10)
            if reply.header.message_type == MessageType.error:
                print(label, "ERROR", reply.header.fields.get(HeaderFields.error_name))
            else:
                print(label, "OK", repr(reply.body).replace("\\n", " "))
        session = connection.send_and_get_reply(
            new_method_call(service, "OpenSession", "sv", ("plain", ("s", ""))), timeout=10).body[1]
        call("GETSECRETS", new_method_call(service, "GetSecrets", "aoo", ([path], session)))
        call("GETSECRET", new_method_call(item, "GetSecret", "o", (session,)))
        call("SETSECRET", new_method_call(item, "SetSecret", "(oayays)", ((session, b"", b"overwritten", "text/plain"),)))
        call("LABEL", new_method_call(properties, "Set", "ssv", ("org.freedesktop.Secret.Item", "Label", ("s", "renamed"))))
        call("ATTRIBUTES", new_method_call(properties, "Get", "ss", ("org.freedesktop.Secret.Item", "Attributes")))
        call("DELETE", new_method_call(item, "Delete", ""))
        call("SEARCH", new_method_call(service, "SearchItems", "a{ss}", ({"service": "probe", "username": "of-a"},)))
        """

    @Test(
        "Another program holding app A's item path reaches nothing through it: GetSecrets, GetSecret, SetSecret, Label, Attributes and Delete are refused, a search for A's exact attributes finds nothing, and A's item is intact"
    )
    func foreignItemPathRefused() throws {
        let lab = try Lab(scripts: ["owner.py": Self.ownerScript, "foreign.py": Self.foreignPathScript])
        let (lines, context) = try lab.world.run(
            """
            APATH=\(lab.asUser(lab.appA, [lab.script("owner.py"), lab.world.bus, "path"]))
            echo "APATH: $APATH"
            \(lab.world.switchUser) \(lab.python) \(lab.script("foreign.py")) \(lab.world.bus) $APATH 2>&1 \
              | sed 's/^\\([A-Z]*\\) /\\1: /'
            echo "AFTER: \(lab.asUser(lab.appA, [lab.script("owner.py"), lab.world.bus, "secret"]))"
            """)
        let path = try #require(lines["APATH"], "\(context)")
        #expect(path.hasPrefix("/org/freedesktop/secrets/collection/"), "\(context)")
        for operation in ["GETSECRET", "SETSECRET", "LABEL", "ATTRIBUTES", "DELETE"] {
            let outcome = try #require(lines[operation], "\(operation): \(context)")
            #expect(
                outcome == "ERROR org.freedesktop.Secret.Error.NoSuchObject",
                "\(operation) on app A's item path: \(context)")
        }
        // GetSecrets answers with the secrets it could read: none.
        #expect(lines["GETSECRETS"] == "OK ({},)", "\(context)")
        #expect(lines["SEARCH"] == "OK ([], [])", "\(context)")
        #expect(lines["AFTER"]?.contains("'secret-a')") == true, "app A's item changed: \(context)")
        #expect(
            lines["AFTER"]?.contains("overwritten") == false && lines["AFTER"]?.contains("renamed") == false,
            "\(context)")
    }

    /// Asks the bus for `org.freedesktop.secrets`, replacing its owner and not queueing: prints RequestName's
    /// answer (1: this program owns it now; 3: it exists and stays its owner's).
    static let nameTakeoverScript = """
        import sys
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        connection = open_dbus_connection(bus=sys.argv[1])
        driver = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
        # DBUS_NAME_FLAG_REPLACE_EXISTING | DBUS_NAME_FLAG_DO_NOT_QUEUE
        reply = connection.send_and_get_reply(
            new_method_call(driver, "RequestName", "su", ("org.freedesktop.secrets", 6)), timeout=10)
        print(reply.body[0])
        """

    @Test(
        "Another program cannot take org.freedesktop.secrets from the walled service while it runs (it would receive what apps store)"
    )
    func nameNotTakenFromWalledService() throws {
        let lab = try Lab(scripts: ["takeover.py": Self.nameTakeoverScript])
        let (lines, context) = try lab.world.run(
            """
            echo "TAKEOVER: \(lab.asUser(lab.python, [lab.script("takeover.py"), lab.world.bus]))"
            """)
        #expect(lines["TAKEOVER"] == "3", "another program took the Secret Service's name: \(context)")
    }

    /// A shared object for the bus daemon that makes it lie: for the peer whose pid is the first number in
    /// `$LIE_FILE`, `SO_PEERCRED` and `SO_PEERGROUPS` report the pid and group that follow.
    static let lyingBusShim = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/socket.h>
        static int (*real)(int, int, int, void *, socklen_t *);
        static int lie(pid_t peer, pid_t *pid, gid_t *gid) {
            const char *path = getenv("LIE_FILE");
            FILE *file = path ? fopen(path, "r") : NULL;
            long from = 0, to = 0, group = 0;
            int count = file ? fscanf(file, "%ld %ld %ld", &from, &to, &group) : 0;
            if (file) fclose(file);
            if (count != 3 || from != peer) return 0;
            *pid = (pid_t)to;
            *gid = (gid_t)group;
            return 1;
        }
        int getsockopt(int fd, int level, int name, void *value, socklen_t *length) {
            if (!real) real = dlsym(RTLD_NEXT, "getsockopt");
            int result = real(fd, level, name, value, length);
            struct ucred peer;
            socklen_t size = sizeof peer;
            pid_t pid;
            gid_t gid;
            if (result != 0 || level != SOL_SOCKET || real(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0
                || !lie(peer.pid, &pid, &gid)) return result;
            if (name == SO_PEERCRED) {
                ((struct ucred *)value)->pid = pid;
                ((struct ucred *)value)->gid = gid;
            } else if (name == SO_PEERGROUPS && *length >= sizeof(gid_t)) {
                ((gid_t *)value)[0] = gid;
                *length = sizeof(gid_t);
            }
            return result;
        }
        """

    /// The thief on a lying bus: names itself to the bus's shim as app A (`argv[2]`, its pid and group), then reads
    /// the items of service `probe` through the service.
    static let lyingBusThiefScript = """
        import os, sys, secretstorage
        from jeepney.io.blocking import open_dbus_connection
        bus, lie_file, pid, group = sys.argv[1:5]
        with open(lie_file, "w") as file:
            file.write(f"{os.getpid()} {pid} {group}\\n")
        connection = open_dbus_connection(bus=bus)
        try:
            print("READ", [item.get_secret().decode() for item in secretstorage.search_items(connection, {"service": "probe"})])
        except Exception as error:
            print("REFUSED", type(error).__name__, error)
        """

    @Test(
        "Documented: a program of the user that runs the user's bus (it replaced the bus daemon, or controls it) is taken for app A by claiming A's process for its own connection",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "skipped: no C compiler (cc)"))
    func lyingBusTakenForTheApp() throws {
        let lab = try Lab(scripts: ["shim.c": Self.lyingBusShim, "thief.py": Self.lyingBusThiefScript])
        let shim = lab.world.lab.apps.file("lie.so").path
        let built = try Wall.run(["/usr/bin/cc", "-shared", "-fPIC", "-o", shim, lab.script("shim.c"), "-ldl"])
        try #require(built.status == 0, "\(built.errors)")
        chmod(shim, 0o755)
        var info = stat()
        try #require(stat(lab.probeA, &info) == 0)
        let lie = "/tmp/kcw-lie-\(UUID().uuidString)"
        defer { unlink(lie) }
        let (lines, context) = try lab.world.run(
            """
            \(lab.world.switchUser) \(lab.probeA) - sleep 30 >/dev/null &
            A=$!
            i=0; while [ "$(readlink /proc/$A/exe)" != "\(lab.probeA)" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            echo "THIEF: \(lab.asUser(lab.python, [lab.script("thief.py"), lab.world.bus, lie, "$A", "\(info.st_gid)"]))"
            kill -9 $A
            """,
            busPrefix: "/usr/bin/env LD_PRELOAD=\(shim) LIE_FILE=\(lie)")
        let thief = try #require(lines["THIEF"], "\(context)")
        // What the README says plainly: the bus is trusted to say which process sent a call.
        #expect(thief.contains("READ ['secret-a']"), "\(context)")
    }
}
