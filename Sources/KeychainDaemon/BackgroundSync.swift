import Foundation
import KeychainCore
import KeychainSync
import Synchronization

/// Each user's sync, run inside the daemon (issue 14, DESIGN §12): a user keychain set up for sync (its directory
/// holds the sync state `security sync-init` or `sync-join` made) is followed in the background through the
/// daemon's own engine for it, so changes from any of the user's processes reach the store, and the store's reach
/// them, without an agent of the user's.
///
/// Started for every such keychain when the daemon starts, and for one set up later when its engine is next opened.
/// A store that cannot be reached is retried by the follower; a pass's failure is logged, never fatal.
final class BackgroundSync: Sendable {
    private let followers = Mutex<[UInt32: SyncFollower]>([:])
    /// Seconds between passes when neither the store nor the keychain says anything changed.
    private let interval: TimeInterval

    init(interval: TimeInterval = 60) {
        self.interval = interval
    }

    /// Starts following `uid`'s keychain in `directory` through `engine`, when it is set up for sync and not
    /// followed yet.
    func start(uid: UInt32, directory: URL, engine: Engine) {
        guard SyncDevice.isConfigured(in: directory) else { return }
        followers.withLock { followers in
            guard followers[uid] == nil else { return }
            do {
                let url = try SyncDevice.storeURL(in: directory, backend: engine)
                let store = try SyncStores.open(url: url)
                let device = try SyncDevice.open(directory: directory, backend: engine, store: store)
                followers[uid] = try device.follow(interval: interval) { result in
                    if case .failure(let error) = result { log("sync of user \(uid)'s keychain: \(error)") }
                }
                // The URL may hold a PostgreSQL password: the journal never sees it.
                log("syncing user \(uid)'s keychain through \(PostgresStore.hidingPassword(url))")
            } catch {
                log("sync of user \(uid)'s keychain cannot start: \(error)")
            }
        }
    }

    /// Stops every follower (the daemon is exiting).
    func stopAll() {
        let all = followers.withLock { followers in
            defer { followers.removeAll() }
            return Array(followers.values)
        }
        for follower in all { follower.cancel() }
    }
}
