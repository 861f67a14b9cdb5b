import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

@Suite("keychaind out of descriptors", .timeLimit(.minutes(1)))
struct DaemonDescriptorLimitTests {
    @Test("A daemon that cannot accept (EMFILE) stays up; the waiting connection is served once a descriptor frees")
    func outOfDescriptors() throws {
        let daemon = try DaemonProcess()
        let client = DaemonClient(socketPath: daemon.socketPath)
        try client.addPassword("kept", "1")
        let pid = try #require(daemon.processIdentifier)
        // Room for two more descriptors, about (the daemon opens and closes some of its own meanwhile).
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) }
        // The limit bounds descriptor numbers, and a new one takes the lowest free number: the limit is where exactly
        // two numbers below it are free.
        var limit = 0
        while limit - open.filter({ $0 < limit }).count < 2 { limit += 1 }
        try setDescriptorLimit(of: daemon, to: limit)
        // Connections the daemon accepts (each takes a descriptor) until its next accept fails (accept takes the
        // descriptor before the connection); then one more, which waits in the listener's queue.
        var held: [SeqPacketSocket] = []
        while held.count < 8, !daemon.log.contains("trying again") {
            held.append(try SeqPacketSocket.connect(to: daemon.socketPath))
            _ = daemon.logs("trying again", within: 0.2)
        }
        #expect(daemon.log.contains("trying again"), "the daemon should have met EMFILE: \(daemon.log)")
        #expect(daemon.processIdentifier != nil, "keychaind exited when it could not accept: \(daemon.log)")
        let waiting = try SeqPacketSocket.connect(to: daemon.socketPath)

        for socket in held { socket.close() }
        held.removeAll()
        // The queued connection is taken now: its handshake is answered.
        try waiting.send(DaemonCoding.encode(DaemonEnvelope(request: .hello(version: DaemonCoding.version))))
        let welcome = try #require(try waiting.receive())
        #expect(try DaemonCoding.decode(DaemonReply.self, from: welcome.message).isWelcome)
        waiting.close()
        try setDescriptorLimit(of: daemon, to: 1024)
        #expect(try client.password("kept") == "1")
        #expect(daemon.logs("accepting connections again", within: 2), "\(daemon.log)")
    }

    /// Sets the daemon's soft descriptor limit with util-linux's `prlimit` (Glibc's module does not export
    /// prlimit(2)), run as the daemon's user: root may not change another user's process without
    /// `CAP_SYS_RESOURCE`, which a container's root may lack.
    private func setDescriptorLimit(of daemon: DaemonProcess, to limit: Int) throws {
        let pid = try #require(daemon.processIdentifier)
        let command = try daemon.asDaemonUser(["/usr/bin/prlimit", "--pid", "\(pid)", "--nofile=\(limit):"])
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: command[0])
        tool.arguments = Array(command.dropFirst())
        try tool.run()
        tool.waitUntilExit()
        try #require(tool.terminationStatus == 0, "prlimit --nofile=\(limit) failed")
    }
}
