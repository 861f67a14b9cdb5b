import Foundation
import TestSupport
import Testing

/// The systemd units in `systemd/`, checked by systemd's own tools where they are installed (the Debian `systemd`
/// package, which scripts/bootstrap installs; systemd need not be running).
@Suite("systemd units: keychaind.socket and keychaind.service", .serialized, .timeLimit(.minutes(2)))
struct SystemdUnitTests {
    /// The repository's `systemd/` directory.
    private static let units = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd", isDirectory: true)

    /// A tool of systemd's on the usual paths, or `nil` (the test then says it skips).
    private static func tool(_ name: String) -> URL? {
        ["/usr/bin", "/bin", "/usr/sbin"].map { URL(fileURLWithPath: "\($0)/\(name)") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `executable arguments…`; returns its status and what it wrote to standard output and error.
    private func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test("The units say what the issue asks: the default socket 0666, a dedicated user, one capability")
    func unitContents() throws {
        let socket = try String(contentsOf: Self.units.appendingPathComponent("keychaind.socket"), encoding: .utf8)
        #expect(socket.contains("ListenSequentialPacket=/run/swift-keychain/keychaind.sock\n"))
        #expect(socket.contains("SocketMode=0666\n"))
        let service = try String(contentsOf: Self.units.appendingPathComponent("keychaind.service"), encoding: .utf8)
        for line in [
            "User=keychaind", "DynamicUser=no", "StateDirectory=swift-keychain", "PrivateNetwork=yes",
            "RestrictAddressFamilies=AF_UNIX", "CapabilityBoundingSet=CAP_SYS_PTRACE",
            "AmbientCapabilities=CAP_SYS_PTRACE", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
            "ExecStart=/usr/local/bin/keychaind --state-directory /var/lib/swift-keychain",
            // Room for the daemon's per-user limits many times over (issue 20).
            "LimitNOFILE=65536", "TasksMax=8192", "MemoryMax=4G",
            // The TPM's resource manager and no other device (issue 26): PrivateDevices would hide it.
            "DevicePolicy=closed", "DeviceAllow=/dev/tpmrm0 rw", "SystemCallFilter=~@raw-io",
        ] {
            #expect(service.contains("\n\(line)\n"), "keychaind.service lacks \(line)")
        }
        #expect(!service.contains("\nPrivateDevices=yes"), "PrivateDevices=yes hides /dev/tpmrm0 from the daemon")
        let allowed = service.split(separator: "\n").filter { $0.hasPrefix("DeviceAllow=") }
        #expect(allowed == ["DeviceAllow=/dev/tpmrm0 rw"], "keychaind.service allows other devices: \(allowed)")
    }

    @Test(
        "systemd-analyze verify accepts both units (ExecStart pointed at the keychaind built here)",
        .enabled(if: SystemdUnitTests.tool("systemd-analyze") != nil, Self.needsSystemd))
    func analyzeVerify() throws {
        try verify(dropIn: nil)
    }

    /// Why a test of systemd's tools did not run.
    static let needsSystemd: Comment = "skipped: systemd-analyze is not installed (apt-get install systemd)"

    /// Runs `systemd-analyze verify` on both units, with `dropIn` as `keychaind.service.d/sync.conf` when given,
    /// and expects it to find nothing wrong with them. verify checks that ExecStart's binary exists, so it is
    /// pointed at the keychaind built here, as `make install` rewrites /usr/local to $(PREFIX).
    private func verify(dropIn: String?) throws {
        let analyze = try #require(Self.tool("systemd-analyze"))
        let directory = try TemporaryDirectory(prefix: "units")
        let service = try String(contentsOf: Self.units.appendingPathComponent("keychaind.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/keychaind", with: BuiltExecutable.named("keychaind").path)
        try Data(service.utf8).write(to: directory.url.appendingPathComponent("keychaind.service"))
        try FileManager.default.copyItem(
            at: Self.units.appendingPathComponent("keychaind.socket"),
            to: directory.url.appendingPathComponent("keychaind.socket"))
        if let dropIn {
            let dropIns = directory.url.appendingPathComponent("keychaind.service.d", isDirectory: true)
            try FileManager.default.createDirectory(at: dropIns, withIntermediateDirectories: true)
            try Data(dropIn.utf8).write(to: dropIns.appendingPathComponent("sync.conf"))
        }
        let result = try run(
            analyze,
            ["verify", "--man=no"]
                + ["keychaind.socket", "keychaind.service"].map { directory.url.appendingPathComponent($0).path })
        #expect(result.status == 0, "systemd-analyze verify: \(result.output)")
        let ours = result.output.split(separator: "\n").filter { $0.contains("keychaind") }
        #expect(ours.isEmpty, "systemd-analyze verify: \(ours.joined(separator: "\n"))")
    }

    @Test(
        "keychaind --sync-drop-in opens exactly what a home-folder store and a TCP PostgreSQL store need, and systemd-analyze verify accepts it",
        .enabled(if: SystemdUnitTests.tool("systemd-analyze") != nil, Self.needsSystemd)
    )
    func syncDropIn() throws {
        // A keychain of the daemon's set up for sync (as root may do it), and two stores named outright.
        let state = try TemporaryDirectory(prefix: "kcd-state")
        let keychain = state.url.appendingPathComponent("users/4242", isDirectory: true)
        let home = try TestHome()
        var tool = home.tool
        tool.environment["KEYCHAIN_DAEMON"] = "off"
        tool.environment["KEYCHAIN_HOME"] = keychain.path
        let store = "file://" + home.url.appendingPathComponent("store").path
        let initialized = try tool.run(["sync-init", "--store", store, "--device", "daemon"])
        try #require(initialized.status == 0, "\(initialized.errors)")
        let printed = try run(
            BuiltExecutable.named("keychaind"),
            [
                "--sync-drop-in", "--state-directory", state.url.path, "--store",
                "file:///home/kc-sync-test/Sync/keychain",
                "--store", "postgresql://sync:hunter2@192.0.2.10:5432/keychain?sslmode=require",
                "--store", "postgresql:///keychain?host=/run/postgresql",
            ])
        try #require(printed.status == 0, "\(printed.output)")
        let dropIn = printed.output
        #expect(dropIn.contains("#   uid 4242: \(store)\n"), "\(dropIn)")
        #expect(!dropIn.contains("hunter2"), "the drop-in shows a password: \(dropIn)")
        let settings = dropIn.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        #expect(
            settings == [
                "[Service]", "ProtectHome=tmpfs", "BindPaths=\"-/home/kc-sync-test/Sync/keychain\"",
                "PrivateNetwork=no", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "IPAddressAllow=192.0.2.10",
            ], "\(dropIn)")

        try verify(dropIn: dropIn)
    }

    /// Whether systemd-socket-activate is installed and knows `--seqpacket` (systemd 247 and later).
    private static var socketActivationWorks: Bool {
        guard let activate = tool("systemd-socket-activate") else { return false }
        let process = Process()
        process.executableURL = activate
        process.arguments = ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        let help = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return help.contains("--seqpacket")
    }

    @Test(
        "keychaind started by systemd-socket-activate --seqpacket serves a security command",
        .enabled(
            if: SystemdUnitTests.socketActivationWorks,
            "skipped: systemd-socket-activate with --seqpacket is not installed (apt-get install systemd)"))
    func socketActivation() throws {
        let activate = try #require(Self.tool("systemd-socket-activate"))
        let daemon = try DaemonProcess(socketActivatedBy: activate)
        let tool = try TestHome().tool(through: daemon)
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "activated"]).status == 0)
        let info = try tool.run(["show-keychain-info"])
        #expect(info.output.hasPrefix("keychain: \"keychaind at \(daemon.socketPath)\"\n"), "\(info.errors)")
        #expect(try tool.run(["find-generic-password", "-a", "a", "-w"]).output == "activated\n")
        #expect(daemon.log.contains("serving the activated socket"), "\(daemon.log)")
    }
}
