import Foundation
import TestSupport
import Testing

@testable import KeychainSync

/// What the PostgreSQL store does beyond the conformance checks: a server that goes away and comes back, SQL in
/// names and bytes, another process's write, the schema's version, URLs and their passwords.
@Suite(.enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
struct PostgresStoreTests {
    /// A server stopped mid-use makes every verb `.unavailable`; started again, the same store works again and
    /// its watch hears changes again. The test runs a server of its own, so it can stop it.
    @Test func serverGoneIsUnavailableAndBackWorksAgain() throws {
        let server = try PostgresServer()
        print("PostgresStoreTests: a throwaway cluster started in \(String(format: "%.2f", server.startSeconds)) s")
        let fixture = try PostgresFixture(server: server)
        let store = try fixture.open()
        let counter = ChangeCounter()
        let watch = try store.watch(counter.onChange)
        defer { watch.cancel() }
        #expect(try store.putIfAbsent("o/1", [1]))
        #expect(counter.wait(beyond: 0))

        server.stop()
        StoreConformance.expectEveryVerbFails(store, with: .unavailable, naming: "postgresql://")

        try server.start()
        #expect(try store.list(prefix: "") == ["o/1"])
        #expect(try store.putIfAbsent("o/2", [2]))
        // The watch reconnects by itself (and says "look again" when it does); then it hears others' writes.
        let deadline = Date(timeIntervalSinceNow: 30)
        var heard = false
        var round = 0
        while !heard, Date() < deadline {
            let calls = counter.calls
            round += 1
            #expect(try fixture.open().putIfAbsent("o/after/\(round)", [3]))
            heard = counter.wait(beyond: calls, timeout: 1) && counter.calls > calls
        }
        #expect(heard, "the watch did not resume")
        let calls = counter.calls
        Thread.sleep(forTimeInterval: 0.2)
        let settled = counter.calls
        #expect(try fixture.open().putIfAbsent("o/last", [4]))
        #expect(counter.wait(beyond: settled), "no call after the watch resumed (calls \(calls))")
    }

    /// Names and bytes that look like SQL are stored as they are: the statements bind them, and a prefix holding
    /// LIKE's wildcard `_` matches only itself.
    @Test func sqlInNamesAndBytesIsStoredVerbatim() throws {
        let fixture = try PostgresFixture()
        let store = try fixture.open()
        let attack = Array("'); DROP TABLE keychain_sync_records; --\u{0}\\x00 $1 $$".utf8)
        #expect(try store.putIfAbsent("drop--table", attack))
        #expect(try store.putIfAbsent("a_b", [1]))
        #expect(try store.putIfAbsent("axb", [2]))
        #expect(try store.putIfAbsent("a__", [3]))
        #expect(try store.get("drop--table") == attack)
        #expect(try store.list(prefix: "a_") == ["a__", "a_b"])
        #expect(try store.list(prefix: "a") == ["a__", "a_b", "axb"])
        for name in ["x' OR '1'='1", "a;DELETE", "a%", "a\"b"] {
            do {
                _ = try store.putIfAbsent(name, [0])
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.kind == .invalidName)
            }
        }
        // Rows another client wrote under names no store could are not records.
        try PostgresServer.runSQL(
            in: fixture.url, "INSERT INTO keychain_sync_records (name, bytes) VALUES ('Upper', ''), ('a//b', '')")
        #expect(try fixture.open().list(prefix: "") == ["a__", "a_b", "axb", "drop--table"])
    }

    @Test func watchSeesAnotherProcess() throws {
        let fixture = try PostgresFixture()
        let store = try fixture.open()
        let counter = ChangeCounter()
        let watch = try store.watch(counter.onChange)
        defer { watch.cancel() }
        let result = try StressProcess.runExecutable(
            BuiltExecutable.named("sync-store-probe"), ["put", fixture.url, "devices/p/log/1", "from another process"])
        #expect(result.status == 0 && result.output == "true\n", "\(result.errors)")
        #expect(counter.wait(beyond: 0), "no call for another process's write")
        #expect(try store.get("devices/p/log/1") == Array("from another process".utf8))
    }

    /// Tables of a newer schema than this build knows are refused, not misread.
    @Test func newerSchemaIsRefused() throws {
        let fixture = try PostgresFixture()
        _ = try fixture.open()
        try PostgresServer.runSQL(in: fixture.url, "INSERT INTO keychain_sync_schema (version) VALUES (2)")
        do {
            _ = try fixture.open()
            Issue.record("a newer schema was accepted")
        } catch {
            #expect(error.kind == .damaged)
            #expect(error.message.contains("version 2"), "\(error.message)")
        }
    }

    /// libpq's socket forms: `?host=/directory` (what the fixtures use) and the directory percent-encoded as host.
    @Test func socketDirectoryAsEncodedHost() throws {
        let fixture = try PostgresFixture()
        guard let query = URLComponents(string: fixture.url)?.queryItems,
            let host = query.first(where: { $0.name == "host" })?.value, host.hasPrefix("/"),
            let database = query.last(where: { $0.name == "dbname" })?.value
        else {
            // The fixtures' servers always listen on a socket directory (scripts/postgres-test-server); a URL
            // without one is a broken fixture, not a reason to skip.
            Issue.record("the server's URL names no socket directory: \(fixture.url)")
            return
        }
        let encoded = host.replacingOccurrences(of: "/", with: "%2F")
        let store = try SyncStores.open(url: "postgres://keychain@\(encoded)/\(database)")
        #expect(try store.putIfAbsent("s/1", [1]))
        #expect(try fixture.open().get("s/1") == [1])
    }

    @Test func passwordsNeverAppearInMessages() throws {
        do {
            _ = try PostgresStore(url: "postgresql://user:hunter2secret@127.0.0.1:1/db", connectTimeout: 2)
            Issue.record("connected to port 1")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(!error.message.contains("hunter2secret"), "\(error.message)")
            #expect(error.message.contains("postgresql://user:***@127.0.0.1:1/db"), "\(error.message)")
        }
        do {
            _ = try PostgresStore(url: "postgresql://127.0.0.1:1/db?password=hunter2secret&bogus=1")
            Issue.record("an unknown parameter was accepted")
        } catch {
            #expect(error.kind == .invalidURL)
            #expect(!error.message.contains("hunter2secret"), "\(error.message)")
            #expect(error.message.contains("bogus"), "\(error.message)")
        }
        do {
            _ = try PostgresStore(url: "postgresql://user:hunter2%zzsecret@127.0.0.1:1/db")
            Issue.record("a malformed percent-escape was accepted")
        } catch {
            #expect(error.kind == .invalidURL)
            #expect(!error.message.contains("hunter2"), "\(error.message)")
        }
    }

    @Test func prefixEndIsTheNextString() {
        #expect(PostgresStore.end(ofPrefix: "") == nil)
        #expect(PostgresStore.end(ofPrefix: "a/") == "a0")
        #expect(PostgresStore.end(ofPrefix: "devices/z") == "devices/{")
    }
}
