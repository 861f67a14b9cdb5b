import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

@Suite("keychaind: a real daemon on a temporary socket", .serialized, .timeLimit(.minutes(2)))
struct DaemonTests {
    private func query(_ account: String, returning: ReturnOptions = .data) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, attributes: genp(account), returning: returning)
    }

    @Test("Items through the daemon land in the user's keychain, which only the daemon's user can read")
    func itemsAndFiles() throws {
        let daemon = try DaemonProcess()
        let client = DaemonClient(socketPath: daemon.socketPath)
        try client.addPassword("alice", "s3cret")
        #expect(try client.password("alice") == "s3cret")
        let directory = daemon.keychainDirectory(of: getuid())
        var info = stat()
        #expect(stat(directory.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(directory.appendingPathComponent("keychain.db").path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(status { try client.addPassword("alice", "again") } == .duplicateItem)
    }

    @Test("One lock state for every process: unlock through one client, read through another; lock, refused")
    func oneLockState() throws {
        let daemon = try DaemonProcess()
        let first = DaemonClient(socketPath: daemon.socketPath)
        try first.setPasscode("1234", current: nil)
        try first.addPassword("a", "1")
        try first.lock()
        let second = DaemonClient(socketPath: daemon.socketPath)
        #expect(try second.keybagStatus().isLocked)
        #expect(status { _ = try second.password("a") } == .interactionNotAllowed)
        try first.unlock(passcode: "1234")
        #expect(try second.password("a") == "1")
        try second.lock()
        #expect(status { _ = try first.password("a") } == .interactionNotAllowed)
    }

    @Test("--idle-lock locks a user's keychain after that long without a request")
    func idleLock() async throws {
        let daemon = try DaemonProcess(arguments: ["--idle-lock", "1"])
        let client = DaemonClient(socketPath: daemon.socketPath)
        try client.setPasscode("1234", current: nil)
        #expect(try !client.keybagStatus().isLocked)
        try await Task.sleep(for: .seconds(2.5))
        #expect(daemon.log.contains("locked the keychain of uid"))
        #expect(try client.keybagStatus().isLocked)
    }

    @Test("While the daemon is down: errSecNotAvailable naming the socket; it reconnects when it is back")
    func downAndBack() throws {
        let daemon = try DaemonProcess()
        let client = DaemonClient(socketPath: daemon.socketPath)
        try client.addPassword("kept", "1")
        daemon.kill()
        var down: EngineError?
        do { _ = try client.password("kept") } catch { down = error as? EngineError }
        #expect(down?.code == .notAvailable)
        #expect(down?.message.contains(daemon.socketPath) == true)
        try daemon.restart()
        #expect(try client.password("kept") == "1")
    }

    @Test("A malformed message gets an error and the connection goes on; a wrong version is refused")
    func malformed() throws {
        let daemon = try DaemonProcess()
        let socket = try SeqPacketSocket.connect(to: daemon.socketPath)
        try socket.send(DaemonCoding.encode(DaemonEnvelope(request: .hello(version: 99))))
        let refused = try DaemonCoding.decode(DaemonReply.self, from: try #require(try socket.receive()).message)
        guard case .failure(let error) = refused else {
            Issue.record("a wrong version was answered with \(refused)")
            return
        }
        #expect(error.message.contains("version \(DaemonCoding.version)"))
        // A version-1 client speaks JSON: it is answered in JSON, so it can show which versions meet.
        let old = try SeqPacketSocket.connect(to: daemon.socketPath)
        try old.send(Array("{\"request\":{\"hello\":{\"version\":1}}}".utf8))
        let answer = try #require(try old.receive()).message
        let oldError = try #require(version1FailureMessage(answer), "a version-1 hello was answered otherwise")
        #expect(
            oldError.contains("protocol version \(DaemonCoding.version)") && oldError.contains("hello(version: 1)"))
        let client = DaemonClient(socketPath: daemon.socketPath)
        let connection = try client.open()
        let binary: [[UInt8]] = [
            [8, 255, 255, 255, 255], [9, 1, 0, 0, 0], [8, 1, 0, 0, 0, 3, 0, 0, 0] + Array("add".utf8),
        ]
        let text = ["", "{", "[1,2]", "{\"request\":{\"add\":{}}}", String(repeating: "x", count: 100_000)]
        for garbage in text.map({ Array($0.utf8) }) + binary {
            try connection.send(garbage)
            let reply = try DaemonCoding.decode(DaemonReply.self, from: try #require(try connection.receive()).message)
            guard case .failure(let error) = reply else {
                Issue.record("\(garbage.prefix(20)) was answered with \(reply)")
                continue
            }
            #expect(error.code == .param)
        }
        try client.addPassword("still", "works")
    }

    @Test("Changes are pushed: a subscriber hears of another client's write and reads it from the feed")
    func changePush() async throws {
        let daemon = try DaemonProcess()
        let reader = DaemonClient(socketPath: daemon.socketPath)
        let start = try reader.latestChangeSequence()
        let heard = HeardCount()
        let observation = try reader.observeChanges { heard.add() }
        defer { observation.cancel() }
        let writer = DaemonClient(socketPath: daemon.socketPath)
        try writer.addPassword("pushed", "1")
        for _ in 0..<1_000 where heard.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(heard.count > 0)
        #expect(try reader.changes(since: start, for: app, limit: 10).changes.map(\.kind) == [.added])
    }
}

@Suite("keychaind: concurrent clients and crashes", .serialized, .timeLimit(.minutes(3)))
struct DaemonConcurrencyTests {
    @Test("Eight clients writing at once: every write is acknowledged once, with its own result (group commit)")
    func concurrentWriters() throws {
        let daemon = try DaemonProcess()
        let failures = HeardCount()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let client = DaemonClient(socketPath: daemon.socketPath)
            for index in 0..<40 {
                do {
                    try client.addPassword("w\(worker)-\(index)", "v\(index)")
                    // A duplicate in the same group is refused alone.
                    if index % 10 == 0,
                        status({ try client.addPassword("w\(worker)-\(index)", "again") }) != .duplicateItem
                    {
                        failures.add()
                    }
                } catch {
                    failures.add()
                }
            }
        }
        #expect(failures.count == 0)
        let client = DaemonClient(socketPath: daemon.socketPath)
        let all = try client.copyMatching(
            ItemQuery(itemClass: .genericPassword, limit: .all, returning: .attributes), for: app)
        #expect(all.count == 320)
        #expect(try client.verify().problems.isEmpty)
    }

    @Test("keychaind SIGKILLed in the middle of writes loses no acknowledged write")
    func killedMidWrites() throws {
        let daemon = try DaemonProcess()
        let acknowledged = Mutex<[String]>([])
        let stop = Mutex(false)
        let writers = DispatchGroup()
        for worker in 0..<4 {
            DispatchQueue.global().async(group: writers) {
                let client = DaemonClient(socketPath: daemon.socketPath)
                var index = 0
                while !stop.withLock({ $0 }) {
                    let account = "k\(worker)-\(index)"
                    if (try? client.addPassword(account, "v")) != nil { acknowledged.withLock { $0.append(account) } }
                    index += 1
                }
            }
        }
        // Killed once writes are being acknowledged (under a loaded machine's slow syncs, a fixed 0.4 s could end
        // before the first one), while the writers go on.
        let deadline = Date().addingTimeInterval(30)
        while acknowledged.withLock({ $0.count }) <= 10, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.2)
        daemon.kill()
        stop.withLock { $0 = true }
        writers.wait()
        try daemon.restart()
        let client = DaemonClient(socketPath: daemon.socketPath)
        let items: [Item]
        do throws(EngineError) {
            items = try client.copyMatching(
                ItemQuery(itemClass: .genericPassword, limit: .all, returning: .attributes), for: app)
        } catch {
            // None stored at all: the subset check below names what was lost.
            guard error.code == .itemNotFound else { throw error }
            items = []
        }
        let stored = Set(items.compactMap { $0.attributes.string(.account) })
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count > 10)
        #expect(Set(acked).isSubset(of: stored))
        #expect(try client.verify().problems.isEmpty)
    }
}

/// Counts notices, from any thread.
final class HeardCount: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add() { value.withLock { $0 += 1 } }
}
