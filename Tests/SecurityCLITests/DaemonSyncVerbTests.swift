import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The sync verbs on the keychain keychaind serves, run by an ordinary user (uid 65534) — no root, no restart: two
/// devices, each a daemon of its own, on one folder store.
@Suite(
    "Sync set up and run by a user through keychaind", .serialized, .timeLimit(.minutes(3)),
    .enabled(
        if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "skipped: needs root and setpriv to run security as uid 65534"))
struct DaemonSyncVerbTests {
    /// Runs `security arguments…` as uid 65534 on `daemon`'s keychain.
    private func run(_ daemon: DaemonProcess, _ arguments: [String]) throws -> SecurityProcess.Result {
        let process = try SpawnedProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", SecurityProcess.executable] + arguments,
            environment: [
                "KEYCHAIN_DAEMON": daemon.socketPath, "SWIFT_BACKTRACE": "enable=no", "PATH": "/usr/bin:/bin",
            ])
        guard process.wait(timeout: .seconds(60)) != nil, let status = process.exitCode else {
            throw SpawnError(message: "security \(arguments.joined(separator: " ")) did not exit")
        }
        return SecurityProcess.Result(status: status, output: process.readOutput(), errors: process.readErrors())
    }

    /// Polls `body` until it holds or `seconds` pass.
    private func eventually(_ seconds: Double, _ body: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try body() { return true }
            usleep(200_000)
        }
        return try body()
    }

    @Test(
        "sync-init, sync-join and sync-approve through each device's daemon; the daemons then carry a change across by themselves"
    )
    func twoDaemons() throws {
        let (a, b) = (try DaemonProcess(), try DaemonProcess())
        let storeDirectory = try TemporaryDirectory()
        // The folder both daemons keep the store in, theirs to write (as an operator would give it to keychaind).
        let folder = storeDirectory.url.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        if a.account == .deployed, let owner = getpwnam("keychaind") {
            chmod(storeDirectory.url.path, 0o755)
            chown(folder.path, owner.pointee.pw_uid, owner.pointee.pw_gid)
        }
        let store = "file://" + folder.path

        let created = try run(a, ["sync-init", "--store", store, "--device", "laptop"])
        #expect(created.status == 0 && created.output.contains("created the sync circle"), "\(created.errors)")
        // Done by the daemon, in the keychain it keeps, not in a directory of the user's.
        #expect(FileManager.default.fileExists(atPath: a.keychainDirectory(of: 65534).path))
        let again = try run(a, ["sync-init", "--store", store])
        #expect(again.status != 0, "a second sync-init was accepted: \(again.output)")

        let joined = try run(b, ["sync-join", "--store", store, "--device", "desktop", "--wait", "0"])
        #expect(joined.status == 0 && joined.errors.contains("no trusted device has answered yet"), "\(joined.errors)")
        let answered = try run(a, ["sync-approve"])
        #expect(answered.status == 0 && answered.output.hasPrefix("desktop ("), "\(answered.errors)")
        let shown = try run(b, ["sync-code"])
        let code = shown.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(shown.status == 0 && code.count == 11, "\(shown.errors)")
        let approved = try run(a, ["sync-approve", code])
        #expect(approved.status == 0, "\(approved.errors)")

        // One pass on request, as the sync verb does.
        #expect(
            try run(a, ["add-generic-password", "-a", "alice", "-s", "mail", "-w", "hunter2", "--synchronizable"])
                .status == 0)
        #expect(try run(a, ["sync"]).status == 0)
        #expect(try run(b, ["sync"]).status == 0)
        #expect(try run(b, ["find-generic-password", "-a", "alice", "-s", "mail", "-w"]).output == "hunter2\n")

        // Then no verb at all: each daemon follows its keychain and the store in the background.
        #expect(
            try run(b, ["add-generic-password", "-a", "bob", "-s", "mail", "-w", "by the daemons", "--synchronizable"])
                .status == 0)
        let carried = try eventually(30) {
            try run(a, ["find-generic-password", "-a", "bob", "-s", "mail", "-w"]).output == "by the daemons\n"
        }
        #expect(carried, "the daemons did not carry bob's item across by themselves")

        let status = try run(b, ["sync-status", "--json"])
        #expect(status.status == 0 && status.output.contains("\"membership\":\"member\""), "\(status.errors)")
        let devices = try run(a, ["sync-devices"])
        #expect(devices.output.contains("desktop") && devices.output.contains("laptop"), "\(devices.errors)")
        let history = try run(a, ["sync-history", "-a", "alice", "-s", "mail"])
        #expect(history.status == 0, "\(history.errors)")
        // Following the store is the daemon's: --watch is for an embedded keychain.
        let watch = try run(a, ["sync", "--watch"])
        #expect(watch.status != 0 && watch.errors.contains("follows the store by itself"), "\(watch.errors)")

        let removed = try run(a, ["sync-remove", "desktop"])
        #expect(removed.status == 0, "\(removed.errors)")
    }

    @Test("A store keychaind cannot reach is refused at sync-init, saying why and what to change; nothing is set up")
    func unreachableStore() throws {
        let daemon = try DaemonProcess()
        let refused = try run(daemon, ["sync-init", "--store", "postgresql://nobody@127.0.0.1:1/none"])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--sync-drop-in"), "\(refused.errors)")
        let status = try run(daemon, ["sync-status"])
        #expect(status.status != 0 && status.errors.contains("not set up for sync"), "\(status.errors)")
    }
}
