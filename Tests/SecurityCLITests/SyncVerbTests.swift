import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The sync verbs as separate processes: two devices (two `KEYCHAIN_HOME`s) on one folder store.
@Suite("Sync verbs", .timeLimit(.minutes(3)))
struct SyncVerbTests {
    private func device(_ home: TestHome) -> SecurityProcess {
        var tool = home.tool
        tool.environment["KEYCHAIN_DAEMON"] = "off"
        return tool
    }

    @Test("sync-init, sync-join, sync-approve, then adds, updates and deletes cross between two processes' keychains")
    func twoDevices() throws {
        let homeA = try TestHome()
        let homeB = try TestHome()
        let (a, b) = (device(homeA), device(homeB))
        let store = "file://" + homeA.url.appendingPathComponent("store").path

        let created = try a.run(["sync-init", "--store", store, "--device", "laptop"])
        #expect(created.status == 0, "\(created.errors)")
        let joined = try b.run(["sync-join", "--store", store, "--device", "desktop", "--wait", "0"])
        #expect(joined.status == 0, "\(joined.errors)")
        #expect(joined.output.isEmpty && joined.errors.contains("no trusted device has answered yet"))
        #expect(try b.run(["sync-code"]).status == 1)
        let answered = try a.run(["sync-approve"])
        #expect(answered.status == 0 && answered.output.hasPrefix("desktop ("), "\(answered.errors)")
        let shown = try b.run(["sync-code"])
        #expect(shown.status == 0, "\(shown.errors)")
        let code = shown.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 11 && shown.errors.contains("type it on laptop: security sync-approve \(code)"))
        #expect(try a.run(["sync-approve", "ZZZZZ-ZZZZZ"]).status == 1)
        let approved = try a.run(["sync-approve", code])
        #expect(approved.status == 0, "\(approved.errors)")

        #expect(
            try a.run(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2", "--synchronizable"]).status
                == 0)
        #expect(try a.run(["add-generic-password", "-a", "bob", "-s", "mail", "-w", "stays here"]).status == 0)
        #expect(try a.run(["sync"]).status == 0)
        let synced = try b.run(["sync"])
        #expect(synced.status == 0, "\(synced.errors)")
        #expect(try b.run(["find-generic-password", "-a", "alice", "-s", "mail", "-w"]).output == "hunter2\n")
        #expect(try b.run(["find-generic-password", "-a", "bob", "-s", "mail"]).status == 44)

        #expect(
            try b.run(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "changed", "--synchronizable", "-U"])
                .status == 0)
        #expect(try b.run(["sync"]).status == 0)
        #expect(try a.run(["sync"]).status == 0)
        #expect(try a.run(["find-generic-password", "-a", "alice", "-s", "mail", "-w"]).output == "changed\n")

        let history = try a.run(["sync-history", "-a", "alice", "-s", "mail", "-w"])
        #expect(history.status == 0 && history.output.contains("password: hunter2"), "\(history.output)")
        #expect(!history.output.contains("password: changed"))

        let devices = try a.run(["sync-devices", "--json"])
        #expect(devices.status == 0)
        #expect(devices.output.contains("\"name\":\"desktop\"") && devices.output.contains("\"membership\":\"member\""))
        let status = try b.run(["sync-status", "--json"])
        #expect(status.output.contains("\"membership\":\"member\""), "\(status.output)")

        #expect(try a.run(["delete-generic-password", "-a", "alice", "-s", "mail"]).status == 0)
        #expect(try a.run(["sync"]).status == 0)
        #expect(try b.run(["sync"]).status == 0)
        #expect(try b.run(["find-generic-password", "-a", "alice", "-s", "mail"]).status == 44)

        let removed = try a.run(["sync-remove", "desktop"])
        #expect(removed.status == 0, "\(removed.errors)")
        let refused = try b.run(["sync"])
        #expect(refused.status == 1 && refused.errors.contains("removed"), "\(refused.errors)")
    }

    @Test("bad sync arguments are usage errors naming what is wrong, and change nothing")
    func usageErrors() throws {
        let home = try TestHome()
        let tool = device(home)
        let missing = try tool.run(["sync-init"])
        #expect(missing.status == 2 && missing.errors.contains("--store"))
        let badURL = try tool.run(["sync-init", "--store", "ftp://example.com/x"])
        #expect(badURL.status == 1 && badURL.errors.contains("ftp"), "\(badURL.errors)")
        #expect(
            !FileManager.default.fileExists(atPath: home.defaultKeychain.appendingPathComponent("sync.sqlite").path))
        let notSetUp = try tool.run(["sync"])
        #expect(notSetUp.status == 1 && notSetUp.errors.contains("not set up for sync"))
        #expect(try tool.run(["sync-approve", "a", "b"]).status == 2)
        #expect(try tool.run(["sync-join", "--store", "file:///nowhere", "--wait", "soon"]).status == 2)
    }

    @Test("sync --watch follows the store: an item added on another device arrives without a command")
    func watch() throws {
        let homeA = try TestHome()
        let homeB = try TestHome()
        let (a, b) = (device(homeA), device(homeB))
        let store = "file://" + homeA.url.appendingPathComponent("store").path
        #expect(try a.run(["sync-init", "--store", store]).status == 0)
        #expect(try b.run(["sync-join", "--store", store, "--wait", "0"]).status == 0)
        #expect(try a.run(["sync-approve"]).status == 0)
        let code = try b.run(["sync-code"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try a.run(["sync-approve", code]).status == 0)
        #expect(try b.run(["sync"]).status == 0)

        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: SecurityProcess.executable)
        watcher.arguments = ["sync", "--watch"]
        watcher.environment = b.processEnvironment
        watcher.standardOutput = FileHandle.nullDevice
        try watcher.run()
        defer {
            if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
            watcher.waitUntilExit()
        }
        #expect(
            try a.run(["add-generic-password", "-a", "w", "-s", "watch", "-w", "pushed", "--synchronizable"]).status
                == 0)
        #expect(try a.run(["sync"]).status == 0)
        var found = false
        for _ in 0..<200 where !found {
            found = try b.run(["find-generic-password", "-a", "w", "-s", "watch", "-w"]).output == "pushed\n"
            if !found { usleep(100_000) }
        }
        #expect(found)
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }

    /// The agent's systemd user unit, as shipped.
    private static func unitText() throws -> String {
        let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("systemd/keychain-sync.service")
        return try String(contentsOf: unit, encoding: .utf8)
    }

    /// systemd-analyze on the usual paths, or `nil` (the verification then shows as skipped).
    private static let analyze = ["/usr/bin", "/bin"].map({ "\($0)/systemd-analyze" }).first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
    })

    @Test("the systemd user unit runs the agent")
    func unit() throws {
        let text = try Self.unitText()
        #expect(text.contains("ExecStart=/usr/local/bin/security sync --watch\n"))
        #expect(text.contains("WantedBy=default.target"))
    }

    @Test(
        "systemd-analyze verify accepts the agent's user unit",
        .enabled(
            if: SyncVerbTests.analyze != nil, "skipped: systemd-analyze is not installed (apt-get install systemd)"))
    func unitVerifies() throws {
        let text = try Self.unitText()
        let analyze = try #require(Self.analyze)
        // verify checks that ExecStart's binary exists; `make install` rewrites /usr/local to $(PREFIX) as this does.
        let directory = try TemporaryDirectory(prefix: "units")
        let copy = directory.url.appendingPathComponent("keychain-sync.service")
        try Data(text.replacingOccurrences(of: "/usr/local/bin/security", with: SecurityProcess.executable).utf8)
            .write(to: copy)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: analyze)
        process.arguments = ["verify", "--man=no", copy.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "systemd-analyze verify: \(output)")
        #expect(!output.contains("keychain-sync"), "systemd-analyze verify: \(output)")
    }
}
