import Foundation
import KeychainCore
import KeychainWire
import Synchronization

/// What one user may take of the daemon, so that no user can deny it to another (issue 20): connections open at
/// once, requests carried out at once, passcodes stretched at once, and how long a connection may stay silent.
/// Everything is counted per the uid of the process that opened the connection (`SO_PEERCRED`), the one the kernel
/// vouches for; the systemd unit's limits (descriptors, tasks, memory) are sized to hold them.
package final class UserLimits: Sendable {
    let options: DaemonOptions
    /// Turns to carry out a request (``DaemonOptions/requestsPerUser``).
    let requests: UserSlots
    /// Turns to stretch a passcode (``DaemonOptions/passcodeChecksPerUser``, ``DaemonOptions/passcodeChecks``).
    let passcodeChecks: UserSlots

    private struct Connections {
        var open: [UInt32: Int] = [:]
        /// The users whose connections are being refused now: said once in the log, not for every connection.
        var refusing: Set<UInt32> = []
    }

    private let connections = Mutex(Connections())

    package init(options: DaemonOptions) {
        self.options = options
        requests = UserSlots(perUser: options.requestsPerUser)
        passcodeChecks = UserSlots(perUser: options.passcodeChecksPerUser, total: options.passcodeChecks)
    }

    /// A new connection's owner, when they may open one more: the caller serves it and then calls
    /// ``close(_:)``. Otherwise the connection is answered with errSecNotAvailable naming the limit and closed,
    /// and `nil` is returned.
    package func admit(_ socket: SeqPacketSocket) -> UInt32? {
        guard let uid = try? socket.peer().uid else {
            refuse(socket, EngineError(.notAvailable, "keychaind cannot read the credentials of the connection"))
            return nil
        }
        let limit = options.connectionsPerUser
        let (admitted, startsRefusing) = connections.withLock { (state) -> (Bool, Bool) in
            guard state.open[uid, default: 0] >= limit else {
                state.open[uid, default: 0] += 1
                return (true, false)
            }
            return (false, state.refusing.insert(uid).inserted)
        }
        guard admitted else {
            if startsRefusing {
                log("uid \(uid) holds \(limit) connections (--max-connections-per-user): refusing more")
            }
            refuse(
                socket,
                EngineError(
                    .notAvailable,
                    "uid \(uid) has \(limit) connections to keychaind open, the most it allows a user "
                        + "(--max-connections-per-user \(limit)); close some and try again"))
            return nil
        }
        return uid
    }

    /// Counts a connection of `uid`'s closed.
    package func close(_ uid: UInt32) {
        connections.withLock { state in
            state.open[uid, default: 1] -= 1
            if state.open[uid] == 0 { state.open[uid] = nil }
            state.refusing.remove(uid)
        }
    }

    /// Answers a connection with `error` and closes it. The peer may send no more (``SeqPacketSocket/shutDownReading()``)
    /// and what it sent already is read first: closed with unread messages, the connection would reach the peer
    /// as a reset, and the answer would be lost.
    func refuse(_ socket: SeqPacketSocket, _ error: EngineError) {
        socket.shutDownReading()
        while (try? socket.receive()) != nil {}
        if let reply = try? DaemonCoding.encode(DaemonReply.failure(error)) { try? socket.send(reply) }
        socket.close()
    }
}
