import Foundation
import Synchronization

/// A real PostgreSQL server for the tests, through `scripts/postgres-test-server` (which `.ci/run` uses too).
///
/// ``shared()`` is the test process's one server: the one at `$KEYCHAIN_TEST_POSTGRES` when set (`.ci/run` starts
/// one for the whole run), else a throwaway cluster started on first use and stopped when the process exits. Each
/// test takes a database of its own from it (``makeDatabase()``). A test that stops and restarts a server starts
/// its own with ``init()``: killed (immediate shutdown) and reaped when released, whatever the test's outcome.
/// Where no PostgreSQL server binaries are installed, ``unavailableReason`` says so and the tests skip.
public final class PostgresServer: @unchecked Sendable {
    // @unchecked: `process` is replaced only by `start()` and `stop()`, which tests call from one task.
    /// The URL of the server's `postgres` database.
    public let url: String
    /// How long the cluster took to create and start, in seconds (0 for the one at `$KEYCHAIN_TEST_POSTGRES`).
    public private(set) var startSeconds: Double = 0
    private let directory: TemporaryDirectory?
    private var process: Process?

    /// The environment variable naming a running server's URL for the tests.
    public static let environmentVariable = "KEYCHAIN_TEST_POSTGRES"

    /// Why the tests cannot have a server (no PostgreSQL server binaries), or `nil` when they can.
    public static var unavailableReason: String? {
        if ProcessInfo.processInfo.environment[environmentVariable] != nil { return nil }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        if versions.contains(where: {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/postgres")
        }) {
            return nil
        }
        return "skipped: no PostgreSQL server binaries in /usr/lib/postgresql (install Debian's postgresql, or set "
            + "\(environmentVariable) to a server's URL)"
    }

    /// Whether the tests can have a server.
    public static var isAvailable: Bool { unavailableReason == nil }

    /// Starts a throwaway cluster of the caller's own, in a temporary directory, on a Unix socket there.
    public init() throws {
        let started = Date()
        let directory = try TemporaryDirectory(prefix: "kcpg")
        self.directory = directory
        url = try Self.script(["url", directory.url.path])
        try Self.script(["init", directory.url.path])
        try start()
        startSeconds = Date().timeIntervalSince(started)
    }

    private init(externalURL: String) {
        url = externalURL
        directory = nil
        startSeconds = 0
    }

    deinit { stop() }

    /// The test process's one server (see the type's comment).
    public static func shared() throws -> PostgresServer {
        try sharedServer.withLock { server in
            if let server { return try server.get() }
            let result: Result<PostgresServer, SharedServerError>
            if let external = ProcessInfo.processInfo.environment[environmentVariable] {
                result = .success(PostgresServer(externalURL: external))
            } else {
                do {
                    let started = try PostgresServer()
                    atexit { PostgresServer.stopShared() }
                    result = .success(started)
                } catch {
                    result = .failure(SharedServerError(description: "\(error)"))
                }
            }
            server = result
            return try result.get()
        }
    }

    /// A new, empty database on the server, named after no other; returns its name and URL.
    public func makeDatabase() throws -> (name: String, url: String) {
        let name = "kc_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try Self.psql(url, "CREATE DATABASE \(name)")
        return (name, Self.url(url, database: name))
    }

    /// Drops a database ``makeDatabase()`` made, closing the connections still open to it (a shared server may
    /// live on after the tests: `$KEYCHAIN_TEST_POSTGRES` can name any server).
    public func dropDatabase(_ name: String) {
        try? Self.psql(url, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Starts the server (again, after ``stop()``) and waits until it accepts connections.
    public func start() throws {
        guard let directory, process?.isRunning != true else { return }
        let process = Process()
        process.executableURL = Self.scriptURL
        process.arguments = ["run", directory.url.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for _ in 0..<1_200 {
            if (try? Self.psql(url, "SELECT 1")) != nil { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        let log = (try? String(contentsOf: directory.file("server.log"), encoding: .utf8)) ?? ""
        throw PostgresStartError(description: "the PostgreSQL test server did not start: \(log)")
    }

    /// Stops the server at once (immediate shutdown, as a crash would) and reaps it; connections see it go away.
    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGQUIT)
        process.waitUntilExit()
    }

    private static let sharedServer = Mutex<Result<PostgresServer, SharedServerError>?>(nil)

    private static func stopShared() {
        guard case .success(let server)? = sharedServer.withLock({ $0 }) else { return }
        server.stop()
        if let directory = server.directory { try? FileManager.default.removeItem(at: directory.url) }
    }

    /// `url` with its database replaced by `database` (a later `dbname` parameter wins in libpq's URLs).
    private static func url(_ url: String, database: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "dbname=" + database
    }

    /// The repository's scripts/postgres-test-server.
    private static var scriptURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/postgres-test-server")
    }

    /// Runs the script and returns its output's first line.
    @discardableResult
    private static func script(_ arguments: [String]) throws -> String {
        try run(scriptURL, arguments)
    }

    /// Runs one SQL command in the database at `url` (through psql), for a test that alters what a store left.
    public static func runSQL(in url: String, _ command: String) throws {
        try psql(url, command)
    }

    /// Runs one SQL command through psql.
    private static func psql(_ url: String, _ command: String) throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap { Int($0) }.max().map { "/usr/lib/postgresql/\($0)/bin/psql" }
        let psql = newest.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil } ?? "/usr/bin/psql"
        try run(URL(fileURLWithPath: psql), ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", command])
    }

    @discardableResult
    private static func run(_ executable: URL, _ arguments: [String]) throws -> String {
        let result = try StressProcess.runExecutable(executable, arguments)
        guard result.status == 0 else {
            throw PostgresStartError(
                description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed: "
                    + result.errors)
        }
        return result.output.split(separator: "\n").first.map(String.init) ?? ""
    }

    private struct SharedServerError: Error, CustomStringConvertible {
        let description: String
    }
}

/// The PostgreSQL test server could not be started or used; the description says why.
public struct PostgresStartError: Error, CustomStringConvertible {
    /// What failed, with the tool's own message.
    public let description: String
}
