import Foundation
import KeychainClient
import KeychainCore
import KeychainWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `flood UNLOCKERS IDLE PASSCODE [REQUESTERS]`: one user trying to deny keychaind to everyone else. It sets
/// PASSCODE on its keychain (when it has none), starts UNLOCKERS threads that each unlock with it over and over on a
/// connection of their own (so that many unlocks are in the daemon at once), then opens IDLE connections that say
/// hello and nothing more, and, with REQUESTERS, threads that each look an item up over and over. Once the idle
/// connections are open it prints one line: how many the daemon welcomed (`held`), refused (`refused`, with the
/// first refusal's `refusal` message), closed, left unanswered after a second (`unanswered`: not accepted) or
/// could not even connect (`unconnected`); then it keeps flooding until it is killed.
///
/// A thread whose request is refused (errSecNotAvailable: the daemon's limits) tries again a millisecond later.
func flood(_ socketPath: String, _ arguments: [String]) throws(EngineError) -> Never {
    guard arguments.count >= 3, let unlockers = Int(arguments[0]), let idle = Int(arguments[1]) else {
        usage("flood needs UNLOCKERS IDLE PASSCODE [REQUESTERS]")
    }
    let passcode = arguments[2]
    let requesters = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
    raiseDescriptorLimit()
    let owner = DaemonClient(socketPath: socketPath)
    if !(try owner.keybagStatus().hasPasscode) { try owner.setPasscode(passcode, current: nil) }
    // Each unlocker connects before the idle connections are opened, so that all of them are in the daemon at once.
    let connected = DispatchSemaphore(value: 0)
    for _ in 0..<unlockers {
        let client = DaemonClient(socketPath: socketPath)
        repeatForever(client, first: { _ = try? client.keybagStatus() }, then: connected) {
            client throws(EngineError) in
            try client.unlock(passcode: passcode)
        }
    }
    for _ in 0..<unlockers { _ = connected.wait(timeout: .now() + 30) }
    var connections: [SeqPacketSocket] = []
    var unconnected = 0
    var firstFailure: String?
    for _ in 0..<idle {
        do throws(EngineError) {
            let socket = try SeqPacketSocket.connect(to: socketPath, timeout: 1)
            try socket.send(DaemonCoding.encode(DaemonEnvelope(request: .hello(version: DaemonCoding.version))))
            connections.append(socket)
        } catch {
            unconnected += 1
            if firstFailure == nil { firstFailure = error.message }
        }
    }
    let query = ItemQuery(itemClass: .genericPassword, attributes: attributes("flood"), returning: .data)
    for _ in 0..<requesters {
        repeatForever(DaemonClient(socketPath: socketPath)) { client throws(EngineError) in
            do throws(EngineError) {
                _ = try client.copyMatching(query, for: DaemonCallers.unregistered)
            } catch {
                if error.code != .itemNotFound { throw error }
            }
        }
    }
    sleep(1)
    var counts = ["held": 0, "refused": 0, "closed": 0, "unanswered": 0]
    var refusal: String?
    for socket in connections {
        guard socket.awaitMessage(timeout: 0) else {
            counts["unanswered", default: 0] += 1
            continue
        }
        switch try? socket.receive().map({ try DaemonCoding.decode(DaemonReply.self, from: $0.message) }) {
        case .welcome?: counts["held", default: 0] += 1
        case .failure(let error)?:
            counts["refused", default: 0] += 1
            if refusal == nil { refusal = error.message }
        default: counts["closed", default: 0] += 1
        }
    }
    var line: [String: Any] = counts.merging(["status": 0, "unconnected": unconnected]) { $1 }
    if let refusal { line["refusal"] = refusal }
    if let firstFailure { line["connectFailure"] = firstFailure }
    emit(line)
    while true {
        withExtendedLifetime(connections) { _ = pause() }
    }
}

/// Runs `body` on a thread of its own, again and again, with `client` (after `first`, then signalling `started`);
/// a refusal (errSecNotAvailable) waits a millisecond before the next try.
private func repeatForever(
    _ client: DaemonClient, first: @escaping @Sendable () -> Void = {}, then started: DispatchSemaphore? = nil,
    _ body: @escaping @Sendable (DaemonClient) throws(EngineError) -> Void
) {
    let thread = Thread {
        first()
        started?.signal()
        while true {
            do throws(EngineError) {
                try body(client)
            } catch {
                if error.code == .notAvailable { usleep(1000) }
            }
        }
    }
    thread.start()
}

/// Raises this process's soft descriptor limit to its hard one: a flood holds more connections than the usual
/// 1,024.
private func raiseDescriptorLimit() {
    var limit = rlimit()
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    guard getrlimit(resource, &limit) == 0 else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(resource, &limit)
}
