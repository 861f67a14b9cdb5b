import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A private session bus (a real `dbus-daemon`) with `keychain-secret-service` serving a keychain of the test's own:
/// both killed and reaped when the value goes, whatever the test's outcome.
final class SecretServiceBus {
    let directory: TemporaryDirectory
    let address: String
    private var daemon: Process?
    private(set) var service: Process?
    private var serviceErrors: Pipe?
    /// What the service's environment adds to the clients' (a test's pinentry, for one).
    var serviceEnvironment: [String: String]
    /// A program (and its arguments) that execs the service in its place, the same process (empty: none).
    var serviceLauncher: [String] = []

    static let serviceExecutable = BuiltExecutable.named("keychain-secret-service")

    /// Starts the bus and, unless `startingService` is false (the test prepares the keychain first, then calls
    /// ``start()``), the service, with `serviceEnvironment` added to its environment.
    init(serviceEnvironment: [String: String] = [:], startingService: Bool = true) throws {
        self.serviceEnvironment = serviceEnvironment
        directory = try TemporaryDirectory()
        let socket = directory.file("bus").path
        address = "unix:path=\(socket)"
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        daemon = bus
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        if startingService { try start() }
    }

    /// Starts the service and waits until it owns its name.
    func start() throws {
        service = try startService()
        try waitForName()
    }

    deinit {
        for process in [service, daemon].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The environment of the bus's clients: the bus, the keychain.
    var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "KEYCHAIN_HOME": directory.keychain.path]
    }

    /// Starts another `keychain-secret-service` on the bus.
    func startService(_ arguments: [String] = []) throws -> Process {
        let process = Process()
        if let launcher = serviceLauncher.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = serviceLauncher.dropFirst() + [Self.serviceExecutable.path] + arguments
        } else {
            process.executableURL = Self.serviceExecutable
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .merging(serviceEnvironment) { $1 }.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        serviceErrors = errors
        try process.run()
        return process
    }

    /// Waits (up to 5 s) until some process owns org.freedesktop.secrets.
    func waitForName() throws {
        for _ in 0..<100 {
            let (status, output, _) = try run(
                "/usr/bin/busctl", ["--address=\(address)", "status", "org.freedesktop.secrets"])
            if status == 0, output.contains("PID=") { return }
            usleep(50_000)
        }
        throw SpawnError(message: "keychain-secret-service never owned org.freedesktop.secrets")
    }

    /// Runs a client (`secret-tool`, `security`) on the bus with `input` on its standard input (and `extra` added to
    /// its environment).
    func run(_ path: String, _ arguments: [String], input: String = "", environment extra: [String: String] = [:])
        throws -> (status: Int32, output: String, errors: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }.merging(extra) { $1 }
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self)
        )
    }

    func secretTool(_ arguments: [String], input: String = "") throws -> (
        status: Int32, output: String, errors: String
    ) {
        try run("/usr/bin/secret-tool", arguments, input: input)
    }
}

/// `keychain-secret-service` with libsecret's own `secret-tool` as the client, on a real private bus.
@Suite(
    "Secret Service: libsecret's secret-tool against keychain-secret-service",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool"),
        "dbus-daemon or secret-tool is not installed"))
struct SecretServiceTests {
    @Test("secret-tool stores, looks up, searches and clears; the security tool finds the item by service and account")
    func storeLookupClear() throws {
        let bus = try SecretServiceBus()
        let stored = try bus.secretTool(
            ["store", "--label=API token", "service", "api.example.com", "username", "alice", "note", "work"],
            input: "s3cret-token")
        #expect(stored.status == 0, "\(stored.errors)")
        let looked = try bus.secretTool(["lookup", "service", "api.example.com", "username", "alice"])
        #expect(looked.status == 0 && looked.output == "s3cret-token", "\(looked.errors)")
        // The same item through the keychain's own tool (and so through SecItem): found by service and account.
        let security = BuiltExecutable.named("security").path
        let found = try bus.run(security, ["find-generic-password", "-s", "api.example.com", "-a", "alice", "-w"])
        #expect(found.output == "s3cret-token\n", "\(found.errors)")
        // A search by any attribute, and a map without a service or an account.
        let searched = try bus.secretTool(["search", "note", "work"])
        let listing = searched.output + searched.errors
        #expect(listing.contains("label = API token") && listing.contains("attribute.note = work"), "\(listing)")
        #expect(
            try bus.secretTool(["store", "--label=Other", "app", "mail", "kind", "imap"], input: "pw2").status == 0)
        #expect(try bus.secretTool(["lookup", "app", "mail"]).output == "pw2")
        #expect(try bus.secretTool(["lookup", "app", "other"]).status != 0)
        // Storing the same attributes again replaces the item.
        _ = try bus.secretTool(
            ["store", "--label=API token", "service", "api.example.com", "username", "alice", "note", "work"],
            input: "rotated")
        #expect(try bus.secretTool(["lookup", "service", "api.example.com", "username", "alice"]).output == "rotated")
        #expect(try bus.secretTool(["clear", "service", "api.example.com", "username", "alice"]).status == 0)
        #expect(try bus.secretTool(["lookup", "service", "api.example.com", "username", "alice"]).status != 0)
        #expect(try bus.run(security, ["find-generic-password", "-s", "api.example.com"]).status == 44)
    }

    @Test("A copied disk: neither the secret nor any attribute name or value is in the keychain's files in clear")
    func nothingInClear() throws {
        let bus = try SecretServiceBus()
        let stored = try bus.secretTool(
            [
                "store", "--label=Private label", "service", "svc-distinct-name", "username", "user-distinct-name",
                "project", "attribute-distinct-value",
            ],
            input: "secret-distinct-value")
        #expect(stored.status == 0, "\(stored.errors)")
        var scanned = 0
        for path in try FileManager.default.subpathsOfDirectory(atPath: bus.directory.keychain.path) {
            guard
                let bytes = FileManager.default.contents(
                    atPath: bus.directory.keychain.appendingPathComponent(path).path)
            else { continue }
            scanned += bytes.count
            for clear in [
                "secret-distinct-value", "svc-distinct-name", "user-distinct-name", "attribute-distinct-value",
                "project", "Private label",
            ] {
                #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) is in clear in \(path)")
            }
        }
        #expect(scanned > 0)
    }

    @Test("The name: a second provider is refused with a clear message, --replace takes it; SIGTERM ends cleanly")
    func nameAndSignals() throws {
        let bus = try SecretServiceBus()
        let second = try bus.startService()
        second.waitUntilExit()
        #expect(second.terminationStatus == 1)
        let replacing = try bus.startService(["--replace"])
        defer {
            if replacing.isRunning {
                kill(replacing.processIdentifier, SIGKILL)
                replacing.waitUntilExit()
            }
        }
        for _ in 0..<100 {
            let (_, output, _) = try bus.run(
                "/usr/bin/busctl", ["--address=\(bus.address)", "status", "org.freedesktop.secrets"])
            if output.contains("PID=\(replacing.processIdentifier)") { break }
            usleep(50_000)
        }
        #expect(try bus.secretTool(["store", "--label=x", "k", "v"], input: "after-replace").status == 0)
        #expect(try bus.secretTool(["lookup", "k", "v"]).output == "after-replace")
        kill(replacing.processIdentifier, SIGTERM)
        replacing.waitUntilExit()
        #expect(replacing.terminationReason == .exit && replacing.terminationStatus == 0)
    }
}

/// The encrypted session: what crosses the bus, captured by `dbus-monitor --pcap` as an eavesdropper on the bus
/// would see it.
@Suite(
    "Secret Service: the dh-ietf1024-sha256-aes128-cbc-pkcs7 session keeps secrets off the bus",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-monitor"),
        "dbus-daemon, dbus-monitor or secret-tool is not installed"))
struct SecretServiceSessionTests {
    /// The bus's traffic while `body` runs.
    private func captured(on bus: SecretServiceBus, _ body: () throws -> Void) throws -> Data {
        let file = bus.directory.file("bus.pcap")
        let monitor = Process()
        monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        monitor.arguments = ["--address", bus.address, "--pcap"]
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let output = try FileHandle(forWritingTo: file)
        monitor.standardOutput = output
        monitor.standardError = FileHandle.nullDevice
        try monitor.run()
        defer {
            if monitor.isRunning {
                kill(monitor.processIdentifier, SIGKILL)
                monitor.waitUntilExit()
            }
        }
        usleep(300_000)
        try body()
        usleep(300_000)
        // SIGKILL: the test runner's blocked signals are inherited, and dbus-monitor writes each packet as it comes.
        kill(monitor.processIdentifier, SIGKILL)
        monitor.waitUntilExit()
        try output.close()
        return try Data(contentsOf: file)
    }

    @Test(
        "secret-tool negotiates the encrypted session: its secrets never cross the bus in clear (a plain session's do)")
    func secretsOffTheBus() throws {
        let bus = try SecretServiceBus()
        let secret = "eavesdropped-secret-value"
        let traffic = try captured(on: bus) {
            let stored = try bus.secretTool(["store", "--label=x", "service", "s", "username", "u"], input: secret)
            #expect(stored.status == 0, "\(stored.errors)")
            let looked = try bus.secretTool(["lookup", "service", "s", "username", "u"])
            #expect(looked.output == secret, "\(looked.errors)")
        }
        #expect(traffic.range(of: Data("dh-ietf1024-sha256-aes128-cbc-pkcs7".utf8)) != nil, "no encrypted session")
        #expect(traffic.range(of: Data(secret.utf8)) == nil, "the secret crossed the bus in clear")
        // The control: the same item read through a plain session is on the wire, so the capture would have shown it.
        // A session serves only the connection that opened it: one client opens it and reads through it.
        let plain = try captured(on: bus) {
            let read = try bus.run("/usr/bin/python3", ["-c", Self.plainSessionRead, bus.address])
            #expect(read.status == 0, "\(read.output) \(read.errors)")
        }
        #expect(plain.range(of: Data(secret.utf8)) != nil, "the control read nothing in clear")
    }

    /// Reads the item of service `s` and user `u` through a plain session, on one connection to the bus `argv[1]`.
    static let plainSessionRead = """
        import sys
        from jeepney import DBusAddress, new_method_call, MessageType
        from jeepney.io.blocking import open_dbus_connection
        connection = open_dbus_connection(bus=sys.argv[1])
        name = "org.freedesktop.secrets"
        service = DBusAddress("/org/freedesktop/secrets", bus_name=name, interface="org.freedesktop.Secret.Service")
        session = connection.send_and_get_reply(
            new_method_call(service, "OpenSession", "sv", ("plain", ("s", ""))), timeout=10).body[1]
        found = connection.send_and_get_reply(
            new_method_call(service, "SearchItems", "a{ss}", ({"service": "s", "username": "u"},)), timeout=10).body[0]
        item = DBusAddress(found[0], bus_name=name, interface="org.freedesktop.Secret.Item")
        reply = connection.send_and_get_reply(new_method_call(item, "GetSecret", "o", (session,)), timeout=10)
        sys.exit(1 if reply.header.message_type == MessageType.error else 0)
        """

    @Test("The collection signals its items' creation, change and deletion on the bus")
    func signals() throws {
        let bus = try SecretServiceBus()
        let traffic = try captured(on: bus) {
            _ = try bus.secretTool(["store", "--label=a", "k", "v"], input: "one")
            _ = try bus.secretTool(["store", "--label=a", "k", "v"], input: "two")
            _ = try bus.secretTool(["clear", "k", "v"])
        }
        for member in ["ItemCreated", "ItemChanged", "ItemDeleted"] {
            #expect(traffic.range(of: Data(member.utf8)) != nil, "no \(member) signal")
        }
    }

    @Test(
        "Writes by other programs (the security tool) are signalled too, through the change feed; before the fix only the service's own were"
    )
    func signalsForOtherWriters() throws {
        let bus = try SecretServiceBus()
        let security = BuiltExecutable.named("security").path
        let traffic = try captured(on: bus) {
            let added = try bus.run(
                security,
                ["add-generic-password", "-s", "feed.example", "-a", "eve", "-w", "x", "--access-group", "login"])
            #expect(added.status == 0, "\(added.errors)")
            usleep(600_000)  // the service reads the feed at least every quarter second
            let deleted = try bus.run(security, ["delete-generic-password", "-s", "feed.example", "-a", "eve"])
            #expect(deleted.status == 0, "\(deleted.errors)")
            usleep(600_000)
        }
        for member in ["ItemCreated", "ItemDeleted"] {
            #expect(traffic.range(of: Data(member.utf8)) != nil, "no \(member) signal for the security tool's write")
        }
    }

    @Test("A client public value outside the group (0, 1, p - 1, too long, not bytes) is InvalidArgs")
    func malformedPublicValues() throws {
        let bus = try SecretServiceBus()
        let prime = Array(repeating: "255", count: 128)
        var minusOne = prime
        minusOne[127] = "254"
        for value in [["1", "0"], ["1", "1"], ["128"] + minusOne, ["129"] + Array(repeating: "1", count: 129)] {
            let answer = try bus.run(
                "/usr/bin/busctl",
                [
                    "--address=\(bus.address)", "call", "org.freedesktop.secrets", "/org/freedesktop/secrets",
                    "org.freedesktop.Secret.Service", "OpenSession", "sv", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "ay",
                ] + value)
            #expect(answer.status != 0, "\(value.prefix(3)) was accepted")
        }
        let notBytes = try bus.run(
            "/usr/bin/busctl",
            [
                "--address=\(bus.address)", "call", "org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service", "OpenSession", "sv", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "s", "x",
            ])
        #expect(notBytes.status != 0)
    }
}

/// D-Bus activation: the bus starts keychain-secret-service when a client first calls the name, from the repository's
/// activation file (`dbus/org.freedesktop.secrets.service`, its Exec pointed at the built service).
@Suite(
    "Secret Service: started on demand by the bus",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool"),
        "dbus-daemon or secret-tool is not installed"))
struct SecretServiceActivationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("A first call activates the service from the activation file; the unit names the same bus name")
    func activation() throws {
        let directory = try TemporaryDirectory()
        let services = directory.file("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let activation = try String(
            contentsOf: Self.repository.appendingPathComponent("dbus/org.freedesktop.secrets.service"), encoding: .utf8)
        #expect(activation.contains("Name=org.freedesktop.secrets"))
        try activation.replacingOccurrences(
            of: "/usr/local/bin/keychain-secret-service", with: SecretServiceBus.serviceExecutable.path
        ).write(
            to: services.appendingPathComponent("org.freedesktop.secrets.service"), atomically: true, encoding: .utf8)
        let unit = try String(
            contentsOf: Self.repository.appendingPathComponent("systemd/keychain-secret-service.service"),
            encoding: .utf8)
        #expect(unit.contains("BusName=org.freedesktop.secrets") && unit.contains("Type=dbus"))
        let socket = directory.file("bus").path
        let configuration = directory.file("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <servicedir>\(services.path)</servicedir>
          <policy context="default">
            <allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: configuration, atomically: true, encoding: .utf8)
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file=\(configuration.path)", "--nofork", "--nopidfile"]
        // What the activated service inherits: the keychain it serves.
        bus.environment = ProcessInfo.processInfo.environment.merging([
            "KEYCHAIN_HOME": directory.keychain.path, "SWIFT_BACKTRACE": "enable=no",
        ]) { $1 }
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        defer {
            // The activated service is the bus's child's: end it by its name's owner, then the bus.
            if let pid = try? ownerPID(address: "unix:path=\(socket)") { kill(pid, SIGKILL) }
            kill(bus.processIdentifier, SIGKILL)
            bus.waitUntilExit()
        }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)"]
        let stored = try StressProcess.runExecutable(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "printf activated | /usr/bin/secret-tool store --label=a k v"],
            setting: environment)
        #expect(stored.status == 0, "\(stored.errors)")
        let looked = try StressProcess.runExecutable(
            URL(fileURLWithPath: "/usr/bin/secret-tool"), ["lookup", "k", "v"], setting: environment)
        #expect(looked.output == "activated", "\(looked.errors)")
    }

    private func ownerPID(address: String) throws -> Int32? {
        let (_, output, _) = try StressProcess.runExecutable(
            URL(fileURLWithPath: "/usr/bin/busctl"), ["--address=\(address)", "status", "org.freedesktop.secrets"])
        let line = output.split(separator: "\n").first { $0.hasPrefix("PID=") }
        return line.flatMap { Int32($0.dropFirst(4)) }
    }
}
