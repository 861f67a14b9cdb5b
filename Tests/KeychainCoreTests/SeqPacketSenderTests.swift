import Foundation
import Testing

@testable import KeychainCore
@testable import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// The pidfd that ties a packet to its sender is the kernel's, made for that packet, or the one it made for an
/// earlier packet of the same connection from the same pid, kept while that process runs. The kept one must never
/// be lent to a packet from another process: a child sharing the connection, or one that took the pid.
@Suite(
    "keychaind's socket: the sender's pidfd kept between messages",
    .enabled(
        if: SeqPacketSocket.kernelAttachesPidfds,
        "skipped: this kernel attaches no pidfds to packets (SO_PASSPIDFD needs Linux 6.5)"))
struct SeqPacketSenderTests {
    /// Sends one message of one packet (`flag` 0, then the text) for each of `texts` from a child process that
    /// shares `socket` as its descriptor 3, and returns the child's pid once it has exited. The child is left a
    /// zombie until ``reap(_:)``: Linux before 6.16 attaches no pidfd for a sender already reaped.
    private func sendFromChild(_ texts: [String] = ["x"], on socket: SeqPacketSocket) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, socket.descriptor, 3)
        let script = texts.map { #"printf '\000"# + $0 + "' >&3" }.joined(separator: "; ")
        let arguments = ["/bin/sh", "-c", script]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, "/bin/sh", &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn: \(String(cString: strerror(spawned)))")
        var info = siginfo_t()
        while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return child
    }

    /// Reaps a child that ``sendFromChild(_:on:)`` left a zombie, and checks that it succeeded.
    private func reap(_ child: pid_t) throws {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        try #require(status == 0, "the child's printf failed (status \(status))")
    }

    @Test("Messages from one running process share the pidfd the kernel attached to the first")
    func keptForTheSameProcess() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        var processes: [ProcessHandle] = []
        for index in 0..<4 {
            try sender.send([UInt8(index)])
            let received = try #require(try receiver.receive())
            #expect(received.message == [UInt8(index)])
            #expect(received.sender?.pid == getpid())
            processes.append(try #require(received.sender?.process))
        }
        #expect(processes.allSatisfy { $0 === processes[0] }, "a pidfd was made again for the same process")
        #expect(processes[0].isRunning == true)
    }

    @Test("A packet from a child sharing the connection gets the child's own pidfd, never the kept one")
    func notLentToAnotherProcess() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        try sender.send([1])
        let first = try #require(try receiver.receive())
        let ours = try #require(first.sender?.process)
        // The child's packet waits in the socket until the child has exited: the kept pidfd (ours) still runs,
        // and the child's pid is not ours.
        let child = try sendFromChild(on: sender)
        defer { try? reap(child) }
        let fromChild = try #require(try receiver.receive())
        #expect(fromChild.message == Array("x".utf8))
        #expect(fromChild.sender?.pid == child)
        let childProcess = try #require(fromChild.sender?.process, "the child's packet came without a pidfd")
        #expect(childProcess !== ours, "the kept pidfd of another process was lent to the child's packet")
        #expect(childProcess.isRunning == false, "the pidfd does not refer to the child, which has exited (a zombie)")
        #expect(ours.isRunning == true)
        // Back to this process: a pidfd of its own again, not the child's (kept last, and exited).
        try sender.send([2])
        let again = try #require(try receiver.receive())
        #expect(again.sender?.pid == getpid())
        let process = try #require(again.sender?.process)
        #expect(process !== childProcess)
        #expect(process.isRunning == true)
    }

    @Test("Once the kept process has exited, its pidfd is not lent even to a packet with its pid")
    func notLentAfterExit() throws {
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        // Two packets from a child that has exited by the time they are read: the first's pidfd is kept; the
        // second has the same pid, as a process that took the pid would, and the kept process has exited.
        let child = try sendFromChild(["x", "y"], on: sender)
        defer { try? reap(child) }
        let first = try #require(try receiver.receive())
        #expect(first.sender?.pid == child)
        let kept = try #require(first.sender?.process)
        #expect(kept.isRunning == false)
        let second = try #require(try receiver.receive())
        #expect(second.message == Array("y".utf8))
        #expect(second.sender?.pid == child)
        #expect(second.sender?.process !== kept, "the pidfd of an exited process was lent to a packet with its pid")
        // And a packet from this process, after them, gets a pidfd of its own.
        try sender.send([3])
        let ours = try #require(try receiver.receive())
        #expect(ours.sender?.pid == getpid())
        #expect(try #require(ours.sender?.process).isRunning == true)
    }

    @Test("With a pidfd kept, the end of the connection or a timeout closes no descriptor of another")
    func endAfterKeptClosesNothingElse() throws {
        // Descriptor 0 open, so that a receipt that wrongly closed "descriptor 0" (an unfilled sender record)
        // shows: in keychaind, 0 is whatever connection or file had it next.
        if fcntl(0, F_GETFD) < 0 { _ = open("/dev/null", O_RDONLY) }
        try #require(fcntl(0, F_GETFD) >= 0)
        let (sender, receiver) = try SeqPacketSocket.credentialedPair()
        try sender.send([1])
        _ = try #require(try receiver.receive())
        try receiver.setTimeouts(receive: 0.05, send: 1)
        #expect(throws: EngineError.self) { try receiver.receive() }
        #expect(fcntl(0, F_GETFD) >= 0, "a timed-out receipt closed descriptor 0")
        sender.close()
        #expect(try receiver.receive() == nil)
        #expect(fcntl(0, F_GETFD) >= 0, "the receipt of the connection's end closed descriptor 0")
    }
}
