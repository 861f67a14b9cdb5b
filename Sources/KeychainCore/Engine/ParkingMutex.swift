import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A lock around a value, like `Synchronization.Mutex`, whose waiters sleep in the kernel at once instead of
/// spinning first: the engine's lock is held for a search or a commit (its sync included), far longer than a spin
/// lasts, and on a machine with few cores a waiter that spins takes the core from the threads that would make
/// progress — the holder among them. (`Mutex` spun for ~15% of keychaind's time with 8 clients reading.)
///
/// A glibc default (`PTHREAD_MUTEX_NORMAL`) mutex: an atomic exchange when free, a futex wait when not.
package final class ParkingMutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is only reached between lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
