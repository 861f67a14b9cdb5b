import Foundation
import KeychainCore
import KeychainSync
import Synchronization

/// Every user's keychain, each an engine directory `STATE/users/<uid>/` that only the daemon's user can read
/// (the engine creates it 0700 and its files 0600), opened on first use and kept open: the daemon holds one
/// lock state per user for all of that user's processes.
package final class UserKeychains: Sendable {
    private let root: URL
    private let options: EngineOptions
    private let engines = ParkingMutex<[UInt32: Engine]>([:])
    private let committers = ParkingMutex<[UInt32: GroupCommitter]>([:])
    /// Each user's sync in the background, for keychains set up for it.
    let sync = BackgroundSync()

    package init(stateDirectory: URL, options: EngineOptions) {
        root = stateDirectory.appendingPathComponent("users", isDirectory: true)
        self.options = options
    }

    /// Opens every user keychain that is set up for sync and starts syncing it, so a restarted daemon syncs
    /// without waiting for each user's first request.
    package func startBackgroundSync() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for uid in names.compactMap(UInt32.init) where SyncDevice.isConfigured(in: directory(of: uid)) {
            do throws(EngineError) {
                _ = try engine(for: uid)
            } catch {
                log("user \(uid)'s keychain cannot be opened for sync: \(error.message)")
            }
        }
    }

    /// The directory of `uid`'s keychain.
    func directory(of uid: UInt32) -> URL {
        root.appendingPathComponent(String(uid), isDirectory: true)
    }

    /// `uid`'s engine, opening (and creating) the keychain on first use.
    func engine(for uid: UInt32) throws(EngineError) -> Engine {
        try engines.withLock { (engines) throws(EngineError) -> Engine in
            if let engine = engines[uid] { return engine }
            let engine = try Engine(storage: .directory(directory(of: uid)), options: options)
            engines[uid] = engine
            sync.start(uid: uid, directory: directory(of: uid), engine: engine)
            return engine
        }
    }

    /// The group committer of `uid`'s keychain.
    func committer(for uid: UInt32) throws(EngineError) -> GroupCommitter {
        let engine = try engine(for: uid)
        return committers.withLock { committers in
            if let committer = committers[uid] { return committer }
            let committer = GroupCommitter(engine: engine)
            committers[uid] = committer
            return committer
        }
    }

    /// The engines open now.
    var open: [UInt32: Engine] { engines.withLock { $0 } }
}
