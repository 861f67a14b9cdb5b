import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20, item 3: keychaind's bounds on what one client may hold: the handshake and idle timeouts, the quotas on
/// a user's items and bytes, and a reply too large to send, each met by a real daemon.
@Suite("keychaind limits: timeouts, quotas and replies too large to send", .timeLimit(.minutes(2)))
struct DaemonLimitsTests {
    /// How long a test waits for the daemon before it calls the daemon hung.
    static let patience: TimeInterval = 30

    /// A connection of the test's own, every wait bounded by ``patience``.
    private func connect(_ daemon: DaemonProcess) throws -> SeqPacketSocket {
        let socket = try SeqPacketSocket.connect(to: daemon.socketPath)
        try socket.setTimeouts(receive: Self.patience, send: Self.patience)
        return socket
    }

    private func reply(on socket: SeqPacketSocket) throws -> DaemonReply? {
        try socket.receive().map { try DaemonCoding.decode(DaemonReply.self, from: $0.message) }
    }

    @Test("A connection that never says hello is told so and closed after the handshake timeout")
    func handshakeTimeout() throws {
        let daemon = try DaemonProcess(arguments: ["--handshake-timeout", "1"])
        let silent = try connect(daemon)
        guard case .failure(let error)? = try reply(on: silent) else {
            Issue.record("the daemon did not answer a connection that never said hello")
            return
        }
        #expect(error.code == .notAvailable)
        #expect(error.message.contains("--handshake-timeout 1"), "\(error.message)")
        #expect(try silent.receive() == nil, "the connection stays open")
        // A client that says hello in time is served as ever.
        #expect(try DaemonClient(socketPath: daemon.socketPath).keybagStatus().hasPasscode == false)
    }

    @Test("An idle connection is closed after the idle timeout; the client's next request connects again by itself")
    func idleTimeout() throws {
        let daemon = try DaemonProcess(arguments: ["--idle-timeout", "1"])
        let idle = try connect(daemon)
        try idle.send(DaemonCoding.encode(DaemonEnvelope(request: .hello(version: DaemonCoding.version))))
        #expect(try reply(on: idle)?.isWelcome == true)
        #expect(try idle.receive() == nil, "the idle connection stays open")

        let client = DaemonClient(socketPath: daemon.socketPath)
        try client.addPassword("kept", "1")
        // The pooled connection outlives the idle timeout; the next request finds it closed and connects again.
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try client.password("kept") == "1")
        try client.addPassword("after", "2")
        #expect(try client.password("after") == "2")
    }

    @Test("A daemon that takes the connection and never answers: the client gives up after its timeout, saying so")
    func clientTimeout() throws {
        let directory = try TemporaryDirectory(prefix: "kc-mute")
        let path = directory.file("mute.sock").path
        // Listening, never accepting: the connection waits in the backlog, and the hello and request are queued.
        let listener = try SeqPacketSocket.listen(at: path, mode: 0o600)
        defer { listener.close() }
        let client = DaemonClient(socketPath: path, timeout: 1)
        let silence = refusal { _ = try client.keybagStatus() }
        #expect(silence?.code == .notAvailable)
        #expect(silence?.message.contains("did not answer at \(path) within 1 s") == true, "\(silence?.message ?? "")")
    }

    @Test("A user's items and bytes are capped (errSecAllocate naming the option); another user's keychain is not")
    func quotas() throws {
        let daemon = try DaemonProcess(arguments: ["--max-items-per-user", "5", "--max-bytes-per-user", "2M"])
        let client = DaemonClient(socketPath: daemon.socketPath)
        for index in 0..<5 { try client.addPassword("small-\(index)", "secret") }
        let refused = refusal { try client.addPassword("small-5", "secret") }
        #expect(refused?.code == .allocate)
        #expect(refused?.message.contains("--max-items-per-user 5") == true, "\(refused?.message ?? "")")
        // A batch that would pass the limit is refused whole.
        for index in 0..<2 { _ = try client.delete(query("small-\(index)"), for: app) }
        let batch = (0..<3).map { index in
            NewItem(itemClass: .genericPassword, attributes: genp("batch-\(index)"), data: Data("b".utf8))
        }
        #expect(refusal { _ = try client.add(batch, for: app) }?.code == .allocate)
        #expect(status { _ = try client.password("batch-0") } == .itemNotFound)
        // Deleting makes room again.
        try client.addPassword("small-5", "secret")

        for index in 2..<6 { _ = try client.delete(query("small-\(index)"), for: app) }
        let large = Data(repeating: 0x61, count: 700 << 10)
        func addLarge(_ account: String) throws {
            _ = try client.add(NewItem(itemClass: .genericPassword, attributes: genp(account), data: large), for: app)
        }
        try addLarge("large-0")
        try addLarge("large-1")
        let full = refusal { try addLarge("large-2") }
        #expect(full?.code == .allocate)
        #expect(full?.message.contains("--max-bytes-per-user 2M") == true, "\(full?.message ?? "")")
        // Root's keychain is full; another user's keychain (root names it) is not.
        let other = DaemonClient(socketPath: daemon.socketPath, user: 4242)
        try other.addPassword("large-2", "fits")
        #expect(try other.password("large-2") == "fits")
    }

    @Test(
        "Four 16 MiB secrets in one service: find-generic-password -s S -w answers the first; a query of all of them with data is refused naming the limit"
    )
    func replyTooLargeToSend() throws {
        let daemon = try DaemonProcess()
        let client = DaemonClient(socketPath: daemon.socketPath)
        let secrets = (0..<4).map { index in Data(repeating: UInt8(ascii: "a") + UInt8(index), count: 16 << 20) }
        for (index, secret) in secrets.enumerated() {
            _ = try client.add(
                NewItem(
                    itemClass: .genericPassword, attributes: genp("big-\(index)", service: "S"), data: secret),
                for: DaemonCallers.root)
        }
        let home = try TemporaryDirectory(prefix: "kc-bigreply")
        let environment = [
            "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "HOME": home.url.path,
            "KEYCHAIN_HOME": home.url.appendingPathComponent("embedded").path, "KEYCHAIN_DAEMON": daemon.socketPath,
        ]
        let found = try TimedCommand.run(
            [BuiltExecutable.named("security").path, "find-generic-password", "-s", "S", "-w"],
            environment: environment, limit: Self.patience * 2)
        try #require(found.status != nil, "find-generic-password -s S -w hung through keychaind (killed)")
        #expect(found.status == 0, "\(found.errors)")
        #expect(found.output == String(decoding: secrets[0], as: UTF8.self) + "\n")

        let all = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("S")], limit: .all, returning: [.data])
        let tooLarge = refusal { _ = try client.copyMatching(all, for: DaemonCallers.root) }
        #expect(tooLarge?.code == .dataTooLarge)
        #expect(tooLarge?.message.contains("\(SeqPacketSocket.messageLimit)") == true, "\(tooLarge?.message ?? "")")
    }

    private func query(_ account: String) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, attributes: genp(account))
    }

    /// The error `body` throws, if any.
    private func refusal(_ body: () throws -> Void) -> EngineError? {
        do {
            try body()
            return nil
        } catch {
            return error as? EngineError
        }
    }
}
