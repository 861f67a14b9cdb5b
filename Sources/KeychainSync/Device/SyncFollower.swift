import Foundation
import KeychainCore

/// A running ``SyncDevice/follow(interval:onPass:)``: a thread that syncs whenever the store or the keychain
/// changes (and at least every interval), until cancelled.
public final class SyncFollower: @unchecked Sendable {
    // @unchecked: `pending` and `cancelled` are used only under `condition`; the watches are set once in `start`.
    private let condition = NSCondition()
    private var pending = true
    private var cancelled = false
    private var storeWatch: (any SyncStoreWatch)?
    private var observation: ChangeObservation?
    private var thread: Thread?
    private let finished = NSCondition()
    private var isFinished = false

    fileprivate init() {}

    fileprivate func start(
        _ device: SyncDevice, interval: TimeInterval,
        onPass: @escaping @Sendable (Result<SyncReport, SyncError>) -> Void
    ) throws(SyncError) {
        storeWatch = try storeCall { () throws(SyncStoreError) -> any SyncStoreWatch in
            try device.store.watch { [weak self] in self?.poke() }
        }
        observation = try keychain("cannot follow the keychain's changes") {
            () throws(EngineError) -> ChangeObservation in
            try device.backend.observeChanges { [weak self] in self?.poke() }
        }
        let thread = Thread { [self] in
            run(device, interval: interval, onPass: onPass)
        }
        thread.name = "keychain-sync"
        self.thread = thread
        thread.start()
    }

    private func poke() {
        condition.lock()
        pending = true
        condition.signal()
        condition.unlock()
    }

    private func run(
        _ device: SyncDevice, interval: TimeInterval,
        onPass: @escaping @Sendable (Result<SyncReport, SyncError>) -> Void
    ) {
        while true {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: interval)
            while !pending && !cancelled {
                if !condition.wait(until: deadline) { break }
            }
            let stop = cancelled
            pending = false
            condition.unlock()
            if stop { break }
            do throws(SyncError) {
                onPass(.success(try device.syncOnce()))
            } catch {
                onPass(.failure(error))
                // The sync state is gone (the keychain was erased and left the circle): reported once, then no
                // more passes, rather than the same failure every interval.
                if error.kind == .notConfigured { break }
            }
        }
        finished.lock()
        isFinished = true
        finished.broadcast()
        finished.unlock()
    }

    /// Stops following; when it returns no pass is running and none follows.
    public func cancel() {
        storeWatch?.cancel()
        observation?.cancel()
        condition.lock()
        cancelled = true
        condition.signal()
        condition.unlock()
        finished.lock()
        while thread != nil && !isFinished { finished.wait() }
        finished.unlock()
    }

    deinit {
        storeWatch?.cancel()
        observation?.cancel()
    }
}

extension SyncDevice {
    /// Syncs now, then whenever the store or the keychain changes (and at least every `interval` seconds), on a
    /// thread of its own, reporting each pass to `onPass`, until the returned follower is cancelled or the keychain
    /// leaves the circle by an erase (reported once, as ``SyncError/Kind/notConfigured``).
    public func follow(
        interval: TimeInterval = 60, onPass: @escaping @Sendable (Result<SyncReport, SyncError>) -> Void
    ) throws(SyncError) -> SyncFollower {
        let follower = SyncFollower()
        try follower.start(self, interval: interval, onPass: onPass)
        return follower
    }
}
