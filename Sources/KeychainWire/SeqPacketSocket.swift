import CSystem
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who sent a message, as the kernel attached it to that message (never as the sender claims).
package struct MessageSender: Sendable, Equatable {
    /// The sending process (its thread group) when it sent.
    package var pid: Int32
    /// Its real user.
    package var uid: UInt32
    /// The group it sent with: its effective group when it sends through ``SeqPacketSocket`` (the kernel accepts
    /// only the sender's real, effective or saved group; a sender that attaches none gets its real group).
    package var gid: UInt32
    /// A pidfd of the sending process, when the kernel attached one: it keeps referring to that very process, so
    /// checks made through `/proc/PID` can be confirmed not to have raced with the pid's reuse. The kernel attached
    /// it to this packet, or to an earlier one of the same connection from the same pid whose process had not
    /// exited when this packet was looked at (``SeqPacketSocket/receive()``): that process then held the pid
    /// throughout, so it is the one that sent this packet. (That holds for the pid the kernel fills in; a sender
    /// privileged over its pid namespace may claim another's pid, and must also send the app's group, which it
    /// holds only as the app: such a sender is trusted already.)
    package var process: ProcessHandle?

    package init(pid: Int32, uid: UInt32, gid: UInt32, process: ProcessHandle? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.process = process
    }

    /// Same process, user and group (the pidfds themselves are different descriptors).
    package static func == (lhs: MessageSender, rhs: MessageSender) -> Bool {
        lhs.pid == rhs.pid && lhs.uid == rhs.uid && lhs.gid == rhs.gid
    }
}

/// An owned pidfd, closed when released.
package final class ProcessHandle: Sendable {
    /// The descriptor.
    package let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { Glibc.close(descriptor) }

    /// A pidfd of the process `pid` now (`pidfd_open`), or `nil` when it is gone or the kernel has none. Opened
    /// after the fact, it pins whichever process has the pid by then: the kernel's own (``MessageSender/process``)
    /// is better where it attaches one.
    package static func open(pid: Int32) -> ProcessHandle? {
        let descriptor = ck_pidfd_open(pid)
        return descriptor >= 0 ? ProcessHandle(descriptor: descriptor) : nil
    }

    /// Whether the process is still running (`nil` when the kernel cannot say). Needs no permission over it.
    package var isRunning: Bool? {
        switch ck_pidfd_is_running(descriptor) {
        case 1: true
        case 0: false
        default: nil
        }
    }
}

/// One end of a `SOCK_SEQPACKET` Unix socket carrying keychaind's messages: each message is split into packets of
/// at most ``packetPayload`` bytes (a packet's first byte says whether more follow), so a message may be larger
/// than the socket's buffer, up to ``messageLimit``. A receiver with credentials on learns the sender of every
/// packet, and a message whose packets come from different senders is refused.
///
/// Not thread-safe: one reader and one writer at a time (the client and the daemon each keep it so).
package final class SeqPacketSocket: @unchecked Sendable {
    // @unchecked: the descriptor is fixed; callers serialise reads and writes (see above).
    package let descriptor: Int32
    /// The most a message may hold; a larger one is refused before any of it is buffered.
    package static let messageLimit = 48 << 20
    /// The payload of one packet (the kernel's default socket buffer holds a few).
    package static let packetPayload = 32 << 10
    private var isClosed = false
    /// Whether each packet carries this process's credentials explicitly: a client's do (keychaind binds a setgid
    /// app's identity to the group sent); the daemon's replies do not (no client reads them).
    private var attachesCredentials = true
    /// Where packets are received, kept between messages (a new one of 32 KiB, zeroed, for every message cost
    /// more than a small request itself); wiped after each packet.
    private var receiveBuffer: [UInt8] = []
    /// The pid and pidfd the kernel last attached to a packet on this connection: kept, so that the next packets
    /// from the same running process need no pidfd of their own (one made and closed for every message cost
    /// keychaind several microseconds of each request).
    private var lastSender: (pid: Int32, process: ProcessHandle)?
    /// Whether the kernel is asked to attach a pidfd to each packet (`nil`: as the socket was made).
    private var attachesPidfds: Bool?

    /// Wraps a connected descriptor (owned from now on).
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Connects to the socket at `path`. With `timeout`, every wait of the connection is bounded by it
    /// (``setTimeouts(receive:send:)``), the connect itself included: it waits while the listener's backlog is full.
    package static func connect(to path: String, timeout: TimeInterval? = nil) throws(EngineError) -> SeqPacketSocket {
        let socket = try unbound(for: path)
        if let timeout { try socket.setTimeouts(receive: timeout, send: timeout) }
        guard try socket.apply(Glibc.connect, to: path) == 0 else {
            if errno == EAGAIN {
                throw EngineError(
                    .notAvailable,
                    "cannot connect to keychaind at \(path): it accepted no connection within \(timeout ?? 0) s")
            }
            throw failure("cannot connect to keychaind at \(path)", code: .notAvailable)
        }
        return socket
    }

    /// A listening socket at `path` (an old socket file there is replaced), mode `mode`, passing credentials.
    package static func listen(at path: String, mode: mode_t) throws(EngineError) -> SeqPacketSocket {
        let socket = try unbound(for: path)
        unlink(path)
        guard try socket.apply(bind, to: path) == 0 else { throw failure("cannot bind the socket \(path)") }
        guard chmod(path, mode) == 0 else { throw failure("cannot set the mode of \(path)") }
        try socket.passCredentials()
        guard Glibc.listen(socket.descriptor, 128) == 0 else { throw failure("cannot listen on \(path)") }
        return socket
    }

    /// A new `SOCK_SEQPACKET` Unix socket (close-on-exec), not yet connected or bound.
    private static func unbound(for path: String) throws(EngineError) -> SeqPacketSocket {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("cannot create a socket for \(path)") }
        return SeqPacketSocket(descriptor: descriptor)
    }

    /// Calls `connect` or `bind` on this socket with the address of `path`.
    private func apply(
        _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, to path: String
    ) throws(EngineError) -> Int32 {
        var address = try Self.address(path)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                call(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Asks the kernel to attach each sender's credentials to the messages this socket receives.
    package func passCredentials() throws(EngineError) {
        guard ck_socket_pass_credentials(descriptor) == 0 else {
            throw Self.failure("cannot turn on credentials passing")
        }
    }

    /// Accepts a connection (it inherits credentials passing); `nil` when interrupted.
    package func accept() throws(EngineError) -> SeqPacketSocket? {
        let client = Glibc.accept(descriptor, nil, nil)
        if client < 0 {
            if errno == EINTR || errno == ECONNABORTED { return nil }
            throw Self.failure("cannot accept a connection")
        }
        // The daemon starts no programs, but a descriptor must never leak into one.
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        let accepted = SeqPacketSocket(descriptor: client)
        accepted.attachesCredentials = false
        return accepted
    }

    /// Sends one message, in as many packets as it needs.
    package func send(_ message: [UInt8]) throws(EngineError) {
        guard message.count <= Self.messageLimit else {
            throw EngineError(
                .dataTooLarge, "a keychaind message of \(message.count) bytes exceeds the limit of \(Self.messageLimit)"
            )
        }
        var offset = 0
        var packet = [UInt8]()
        packet.reserveCapacity(min(message.count, Self.packetPayload) + 1)
        defer { packet.wipe() }  // it held the message's last packet
        repeat {
            let end = min(offset + Self.packetPayload, message.count)
            packet.removeAll(keepingCapacity: true)
            packet.append(end == message.count ? 0 : 1)
            packet.append(contentsOf: message[offset..<end])
            // A client's packets carry its effective group: keychaind binds a setgid app's identity to it.
            let sent = packet.withUnsafeBytes {
                ck_socket_send(descriptor, $0.baseAddress, $0.count, attachesCredentials ? 1 : 0)
            }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw Self.timedOut("the peer took no packet") }
                throw Self.failure("cannot send to keychaind", code: .notAvailable)
            }
            offset = end
        } while offset < message.count
    }

    /// Receives one whole message and its sender (`nil` when credentials are off), or `nil` when the peer closed.
    /// The caller wipes the message once done with it (``Swift/Array/wipe()``); a message refused half-way is wiped
    /// here.
    /// A message over the limit, a cut packet, a packet with more descriptors attached than fit beside the
    /// credentials, or packets from different senders are refused (`errSecParam`); the connection should then be
    /// closed.
    package func receive() throws(EngineError) -> (message: [UInt8], sender: MessageSender?)? {
        var message: [UInt8] = []
        var sender: MessageSender?
        var first = true
        // Taken out while in use, so that it is not copied on write.
        var buffer = receiveBuffer
        receiveBuffer = []
        if buffer.count != Self.packetPayload + 1 { buffer = [UInt8](repeating: 0, count: Self.packetPayload + 1) }
        var delivered = false
        defer {
            if !delivered {
                message.wipe()
                buffer.wipe()
            }
            receiveBuffer = buffer
        }
        while true {
            var truncated: Int32 = 0
            // As the receipt fills it, for the ways out where none happens (a zero descriptor would be closed).
            var attached = ck_sender(pid: -1, uid: -1, gid: -1, pidfd: -1)
            var count = 1
            var known: (pid: Int32, process: ProcessHandle)?
            if let last = lastSender {
                // A look at the packet's sender first: from the process whose pidfd is kept, and still running, it
                // needs no pidfd of its own; from any other, the kernel is asked for one.
                var peeked = ck_sender()
                count = ck_socket_peek_sender(descriptor, &peeked)
                if count > 0 {
                    if peeked.pid > 0, peeked.pid == last.pid, last.process.isRunning == true { known = last }
                    askForPidfds(known == nil)
                }
            }
            if count > 0 {
                count = buffer.withUnsafeMutableBytes { bytes in
                    ck_socket_receive(descriptor, bytes.baseAddress, bytes.count, &truncated, &attached)
                }
            }
            // Owned at once, so that every way out below closes it.
            let attachedProcess = attached.pidfd >= 0 ? ProcessHandle(descriptor: attached.pidfd) : nil
            if count < 0 {
                if errno == EAGAIN {
                    throw Self.timedOut(first ? "no message came" : "the rest of a message did not come")
                }
                throw Self.failure("cannot receive from the keychaind socket", code: .notAvailable)
            }
            if count == 0 {
                if first { return nil }
                throw EngineError(.param, "the connection closed in the middle of a message")
            }
            guard truncated & 1 == 0 else {
                throw EngineError(.param, "a keychaind packet is longer than the protocol allows")
            }
            // Without this, the packet would arrive without its sender: refused later as uncredentialed, or, within
            // a message, as coming from another process.
            guard truncated & 2 == 0 else {
                throw EngineError(
                    .param, "a keychaind packet came with descriptors attached, which the protocol refuses")
            }
            guard attached.pidfd != CK_SENDER_GONE else {
                throw EngineError(
                    .param, "the sender of a keychaind packet (pid \(attached.pid)) was gone before the packet was read"
                )
            }
            let handle = try sendingProcess(attached, attachedProcess, known: known)
            let packetSender =
                attached.pid >= 0 && attached.uid >= 0
                ? MessageSender(
                    pid: attached.pid, uid: UInt32(attached.uid), gid: UInt32(attached.gid), process: handle) : nil
            if first {
                sender = packetSender
                first = false
            } else if packetSender != sender {
                throw EngineError(.param, "the packets of one message came from different processes")
            }
            guard message.count + count - 1 <= Self.messageLimit else {
                throw EngineError(.dataTooLarge, "a keychaind message exceeds the limit of \(Self.messageLimit) bytes")
            }
            // Grown by doubling, the storage left behind wiped: the message is whole in one buffer only, which the
            // receiver wipes once it is decoded.
            message.reserveWiping(count - 1)
            message.append(contentsOf: buffer[1..<count])
            let flag = buffer[0]
            // What stays in the kept buffer is wiped: it may be a secret.
            buffer.withUnsafeMutableBytes { bytes in if let base = bytes.baseAddress { memset(base, 0, count) } }
            if flag == 0 {
                delivered = true
                return (message, sender)
            }
            guard flag == 1 else {
                throw EngineError(.param, "a keychaind packet has an unknown flag \(flag)")
            }
        }
    }

    /// The pidfd of a received packet's sender: the one the kernel attached (kept for the next packets), else
    /// `known`, the kept one the look before the receipt found for this sender's pid. Only this thread reads the
    /// socket, so the packet received is the packet looked at; a different sender would mean otherwise, and is
    /// refused.
    private func sendingProcess(
        _ attached: ck_sender, _ attachedProcess: ProcessHandle?, known: (pid: Int32, process: ProcessHandle)?
    ) throws(EngineError) -> ProcessHandle? {
        if let process = attachedProcess {
            // Pid 0: a sender outside this pid namespace, which names no one process; never kept.
            if attached.pid > 0 {
                lastSender = (attached.pid, process)
                askForPidfds(false)
            }
            return process
        }
        guard let known else { return nil }
        guard attached.pid == known.pid else {
            throw EngineError(.param, "a keychaind packet's sender changed between a look at it and its receipt")
        }
        return known.process
    }

    /// Asks the kernel to attach (or no longer attach) a pidfd to each packet, unless it is asked so already.
    private func askForPidfds(_ asks: Bool) {
        guard attachesPidfds != asks else { return }
        attachesPidfds = ck_socket_attach_pidfds(descriptor, asks ? 1 : 0) == 0 ? asks : nil
        // Not asked after all: no pidfd is lent from now on either, so the packets go as on a kernel without them.
        if attachesPidfds == nil { lastSender = nil }
    }

    /// The connected peer's credentials when it connected (SO_PEERCRED).
    package func peer() throws(EngineError) -> MessageSender {
        var pid: Int32 = 0
        var uid: Int64 = 0
        var gid: Int64 = 0
        guard ck_socket_peer(descriptor, &pid, &uid, &gid) == 0 else { throw Self.failure("cannot read the peer") }
        return MessageSender(pid: pid, uid: UInt32(truncatingIfNeeded: uid), gid: UInt32(truncatingIfNeeded: gid))
    }

    /// Shuts the connection down for both directions (a blocked reader wakes with end of file).
    package func shutDown() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes the descriptor (idempotent).
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        lastSender = nil
        Glibc.close(descriptor)
    }

    private static func address(_ path: String) throws(EngineError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw EngineError(.param, "the socket path \(path) is empty or longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// A send or receive that waited past the socket's timeout (``setTimeouts(receive:send:)``).
    private static func timedOut(_ what: String) -> EngineError {
        EngineError(.notAvailable, "\(what) on the keychaind connection within its timeout")
    }

    private static func failure(_ what: String, code: EngineError.Code = .ioError) -> EngineError {
        EngineError(code, "\(what): \(String(cString: strerror(errno)))")
    }
}
