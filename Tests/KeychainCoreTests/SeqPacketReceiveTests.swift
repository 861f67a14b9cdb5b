import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// A socket keeps its receive buffer between messages: nothing of one message may leak into the next.
@Suite("keychaind's socket: messages received one after another on one connection")
struct SeqPacketReceiveTests {
    @Test("Messages of several packets and of a few bytes, received in turn, each come out exactly as sent")
    func backToBack() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        let sizes = [80_000, 3, SeqPacketSocket.packetPayload, 1, 40_000, 0]
        for (index, size) in sizes.enumerated() {
            let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            try sender.send(message)
            let received = try #require(try receiver.receive())
            #expect(received.message == message, "message \(index) of \(size) bytes")
            #expect(received.sender?.pid == getpid())
        }
    }
}
