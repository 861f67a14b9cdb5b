import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// Packets that come with descriptors attached (the protocol passes none; `make fuzz-daemon` found these): a few are
/// closed and the packet is read with its sender; more than fit beside the credentials made the kernel drop the
/// credentials, and the packet was read as uncredentialed (or, inside a message, as from "different processes").
@Suite("keychaind's packets with descriptors attached")
struct SeqPacketDescriptorTests {
    /// Sends one packet (`flag`, then `payload`) with `count` duplicates of standard input attached.
    private func send(flag: UInt8, _ payload: [UInt8], attaching count: Int, on socket: SeqPacketSocket) throws {
        var bytes = [flag] + payload
        let header = MemoryLayout<cmsghdr>.size
        let length = header + count * MemoryLayout<Int32>.size
        var control = [UInt8](repeating: 0, count: (length + 7) / 8 * 8)
        control.withUnsafeMutableBytes { raw in
            var head = cmsghdr()
            head.cmsg_len = length
            head.cmsg_level = SOL_SOCKET
            head.cmsg_type = 1  // SCM_RIGHTS
            raw.storeBytes(of: head, as: cmsghdr.self)
            for index in 0..<count {
                raw.storeBytes(of: STDIN_FILENO, toByteOffset: header + index * 4, as: Int32.self)
            }
        }
        let sent = bytes.withUnsafeMutableBytes { buffer in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    return sendmsg(socket.descriptor, &message, Int32(MSG_DONTWAIT))
                }
            }
        }
        try #require(sent == bytes.count, "sendmsg: \(String(cString: strerror(errno)))")
    }

    @Test("A packet with more descriptors than fit beside the credentials is refused, saying so")
    func tooManyDescriptors() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        try send(flag: 0, Array("{}".utf8), attaching: 20, on: sender)
        #expect {
            _ = try receiver.receive()
        } throws: { error in
            guard let error = error as? EngineError else { return false }
            return error.code == .param && error.message.contains("descriptors attached")
        }
    }

    @Test("Inside a message, such a packet is refused for its descriptors, not as another process's")
    func tooManyDescriptorsInsideAMessage() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        try send(flag: 1, Array("{".utf8), attaching: 0, on: sender)
        try send(flag: 0, Array("}".utf8), attaching: 20, on: sender)
        #expect {
            _ = try receiver.receive()
        } throws: { error in
            (error as? EngineError)?.message.contains("descriptors attached") == true
        }
    }

    @Test("A few descriptors are closed and the packet is read with its sender")
    func fewDescriptors() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        try send(flag: 0, Array("{}".utf8), attaching: 2, on: sender)
        let received = try #require(try receiver.receive())
        #expect(received.message == Array("{}".utf8))
        #expect(received.sender?.pid == getpid())
    }
}
