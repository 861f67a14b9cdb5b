import Foundation
import KeychainCore
import KeychainSync
import TestSupport
import Testing

@testable import Keychain

#if canImport(Glibc)
    import Glibc
#endif

/// Sync inside keychaind (issue 14): a user keychain the daemon serves, set up for sync, is followed in the
/// background by the daemon itself: a synchronizable item written through the daemon reaches the store with no
/// agent of the user's. Root sets the keychain up here by running `security sync-init` as the daemon's
/// user on the daemon's copy of the keychain (only that user may open its directory).
@Suite(
    "Sync inside keychaind", .serialized,
    .enabled(if: DaemonProcess.canDeploy, Comment(rawValue: DaemonProcess.needsDeployment)), .timeLimit(.minutes(2)))
struct DaemonSyncTests {
    @Test("A keychain set up for sync is synced by the daemon in the background after a restart")
    func backgroundSync() async throws {
        let daemon = try DaemonProcess()
        let keychain = try await Self.warmKeychain(daemon)
        // The store is a folder the daemon's user may write, as a deployment would give it.
        let storeDirectory = try TemporaryDirectory()
        let owner = try #require(daemon.deployedUser)
        chown(storeDirectory.url.path, owner.uid, owner.gid)
        let url = "file://" + storeDirectory.url.path
        let created = try Self.runSecurity(daemon, ["sync-init", "--store", url, "--device", "daemon"])
        try #require(created.status == 0, "sync-init as the daemon's user: \(created.errors)")
        try daemon.restart()
        let store = try SyncStores.open(url: url)
        // The daemon's first pass may write entries of its own: the count is taken once it has settled.
        var before = -1
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(200))
            let count = try store.list(prefix: "").count
            if count == before, daemon.log.contains("syncing user") { break }
            before = count
        }
        try await keychain.synchronizable(true).set("everywhere", for: "alice")
        var after = before
        for _ in 0..<100 where after == before {
            try await Task.sleep(for: .milliseconds(100))
            after = try store.list(prefix: "").count
        }
        #expect(after > before, "the daemon wrote nothing to the store; its log: \(daemon.log)")
        #expect(daemon.log.contains("syncing user \(getuid())'s keychain"))
    }

    /// Issue 21, item 10: the daemon logged the store's URL as it was set up, a PostgreSQL password included, into
    /// the journal every local user may read on many systems.
    @Test(
        "The daemon's log names a PostgreSQL store with its password hidden",
        .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
    func logHidesPassword() async throws {
        let daemon = try DaemonProcess()
        let server = try PostgresServer()
        // The cluster's socket directory is its owner's alone; the daemon's user needs to reach the socket in it.
        let components = try #require(URLComponents(string: server.url))
        let socketDirectory = try #require(components.queryItems?.first { $0.name == "host" }?.value)
        chmod(socketDirectory, 0o711)
        let password = "hunter2-\(UUID().uuidString)"
        let url = server.url.replacingOccurrences(of: "keychain@", with: "keychain:\(password)@")
        #expect(url.contains(password))
        _ = try await Self.warmKeychain(daemon)
        let created = try Self.runSecurity(daemon, ["sync-init", "--store", url, "--device", "daemon"])
        try #require(created.status == 0, "sync-init as the daemon's user: \(created.errors)")
        #expect(!created.output.contains(password) && !created.errors.contains(password))
        let status = try Self.runSecurity(daemon, ["sync-status", "--json"])
        #expect(!status.output.contains(password), "sync-status shows the password: \(status.output)")
        try daemon.restart()
        for _ in 0..<100 where !daemon.log.contains("syncing user") {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(daemon.log.contains("syncing user \(getuid())'s keychain through postgresql://keychain:***@"))
        #expect(!daemon.log.contains(password), "the daemon's log holds the store's password: \(daemon.log)")
    }

    /// A keychain of this user's through `daemon`, written once so that the daemon has made its directory.
    private static func warmKeychain(_ daemon: DaemonProcess) async throws -> Keychain {
        let identity = try ApplicationIdentity(applicationIdentifier: "TEAM.a")
        let keychain = Keychain.$environmentOverride.withValue(["KEYCHAIN_DAEMON": daemon.socketPath]) {
            Keychain(service: "api", identity: identity)
        }
        try await keychain.set("local", for: "warm-up")
        return keychain
    }

    /// Runs `security arguments…` as the daemon's user on the daemon's copy of this user's keychain, as root may set
    /// sync up (users do it through the daemon: DaemonSyncVerbTests).
    private static func runSecurity(
        _ daemon: DaemonProcess, _ arguments: [String]
    ) throws -> (status: Int32, output: String, errors: String) {
        let command = try daemon.asDaemonUser([BuiltExecutable.named("security").path] + arguments)
        return try StressProcess.runExecutable(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
            setting: ["KEYCHAIN_DAEMON": "off", "KEYCHAIN_HOME": daemon.keychainDirectory(of: getuid()).path])
    }
}
