import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A ``PostgresStore``'s watch: a connection of its own that `LISTEN`s on the store's channel, its thread asleep in
/// `poll` on that connection's socket and the watch's wake-up pipe, so a `NOTIFY` wakes it at once and a cancel
/// too.
///
/// The first connection is made before ``start(url:description:connectTimeout:onChange:)`` returns, so a change
/// committed after it is never missed. When the connection is lost, the thread reconnects (waiting 0.1 s, then
/// twice as long each time, at most 2 s) and, once it listens again, calls `onChange`: what changed meanwhile sent
/// no notification it could hear.
enum PostgresWatcher {
    /// Starts watching; throws only when the thread cannot be started (an unreachable server is retried).
    static func start(
        url: String, description: String, connectTimeout: Double, onChange: @escaping @Sendable () -> Void
    ) throws(SyncStoreError) -> WatchThread {
        let first = Handoff(try? listen(url: url, description: description, timeout: connectTimeout, wake: nil))
        return try WatchThread(name: "swift-keychain PostgreSQL store watch", onChange: onChange) { context in
            var connection = first.take()
            var delay = 0.1
            while !context.isCancelled {
                guard let current = connection else {
                    guard context.sleep(delay) else { return }
                    connection = try? listen(
                        url: url, description: description, timeout: connectTimeout, wake: context.wakeDescriptor)
                    if connection == nil {
                        delay = min(delay * 2, 2)
                    } else {
                        delay = 0.1
                        context.notify()
                    }
                    continue
                }
                var descriptors = [
                    pollfd(fd: context.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: current.socket, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&descriptors, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if descriptors[0].revents != 0 { return }
                guard current.consumeInput() else {
                    connection = nil
                    continue
                }
                if current.takeNotifications() > 0 { context.notify() }
            }
        }
    }

    private static func listen(
        url: String, description: String, timeout: Double, wake: Int32?
    ) throws(SyncStoreError) -> PostgresConnection {
        let connection = try PostgresConnection(url, description: description, timeout: timeout, wake: wake)
        try connection.execute("LISTEN \(PostgresSchema.channel)", doing: "listen for changes")
        return connection
    }

    /// Hands the first connection to the watch's thread: it is used by that thread alone from then on.
    private final class Handoff: @unchecked Sendable {
        // @unchecked: written in init, taken once by the thread, which alone uses it afterwards.
        private var connection: PostgresConnection?
        init(_ connection: PostgresConnection?) { self.connection = connection }
        func take() -> PostgresConnection? {
            defer { connection = nil }
            return connection
        }
    }
}
