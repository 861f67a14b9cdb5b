import Synchronization

/// A registration for change notices (``KeychainBackend/observeChanges(_:)``): notices stop when it is cancelled
/// or released.
public final class ChangeObservation: Sendable {
    private let stop: Mutex<(@Sendable () -> Void)?>

    /// An observation that runs `stop` once, when cancelled or released.
    public init(stop: @escaping @Sendable () -> Void) {
        self.stop = Mutex(stop)
    }

    /// Stops the notices (idempotent).
    public func cancel() {
        let stop = self.stop.withLock { stop in
            defer { stop = nil }
            return stop
        }
        stop?()
    }

    deinit { cancel() }
}
