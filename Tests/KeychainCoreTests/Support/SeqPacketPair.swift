import Foundation
import Testing

@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

extension SeqPacketSocket {
    /// A connected pair of sockets as keychaind's connections are: the first end sends, the second receives with
    /// credentials (and, where the kernel has them, pidfds) on.
    static func credentialedPair() throws -> (sender: SeqPacketSocket, receiver: SeqPacketSocket) {
        var descriptors: [Int32] = [-1, -1]
        let made = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors)
        try #require(made == 0, "socketpair: \(String(cString: strerror(errno)))")
        let receiver = SeqPacketSocket(descriptor: descriptors[1])
        try receiver.passCredentials()
        return (SeqPacketSocket(descriptor: descriptors[0]), receiver)
    }

    /// Whether this kernel attaches pidfds to received packets at all (Linux 6.5 and later).
    static let kernelAttachesPidfds: Bool = {
        guard let (sender, receiver) = try? credentialedPair(), (try? sender.send([1])) != nil else { return false }
        return (try? receiver.receive())??.sender?.process != nil
    }()
}
