import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The thread behind a store's ``SyncStore/watch(_:)``: runs a store's loop on a thread of its own, with a wake-up
/// pipe the loop polls beside its own descriptors so that ``cancel()`` interrupts any wait at once, and joins the
/// thread before ``cancel()`` returns.
final class WatchThread: SyncStoreWatch {
    /// What the loop sees of its watch.
    final class Context: @unchecked Sendable {
        // @unchecked: `cancelled`, `finished` and `thread` are read and written only holding `condition`; the
        // descriptors are set once, and closed only in deinit, when neither the loop nor a canceller holds this.
        /// The read end of the wake-up pipe: readable once the watch is cancelled. Poll it beside what you wait on.
        let wakeDescriptor: Int32
        fileprivate let wakeWrite: Int32
        fileprivate let condition = NSCondition()
        fileprivate var cancelled = false
        fileprivate var finished = false
        fileprivate var thread: pthread_t?
        private let onChange: @Sendable () -> Void

        fileprivate init(wakeRead: Int32, wakeWrite: Int32, onChange: @escaping @Sendable () -> Void) {
            wakeDescriptor = wakeRead
            self.wakeWrite = wakeWrite
            self.onChange = onChange
        }

        deinit {
            close(wakeDescriptor)
            close(wakeWrite)
        }

        /// Whether the watch was cancelled: the loop returns as soon as it sees this.
        var isCancelled: Bool {
            condition.lock()
            defer { condition.unlock() }
            return cancelled
        }

        /// Calls the watcher's `onChange`, unless the watch was cancelled.
        func notify() {
            guard !isCancelled else { return }
            onChange()
        }

        /// Waits `seconds` or until the watch is cancelled; returns `false` when it was.
        func sleep(_ seconds: Double) -> Bool {
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(max(0, seconds * 1000)))
            return !isCancelled
        }
    }

    private let context: Context

    /// Starts `loop` on a thread named `name`; it returns when `context.isCancelled` (or it has nothing left to
    /// watch), and the thread ends with it.
    init(
        name: String, onChange: @escaping @Sendable () -> Void, loop: @escaping @Sendable (Context) -> Void
    ) throws(SyncStoreError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw SyncStoreError(.unavailable, "cannot watch \(name): pipe failed: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let context = Context(wakeRead: ends[0], wakeWrite: ends[1], onChange: onChange)
        self.context = context
        let thread = Thread {
            context.condition.lock()
            context.thread = pthread_self()
            context.condition.unlock()
            loop(context)
            context.condition.lock()
            context.finished = true
            context.condition.broadcast()
            context.condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    deinit { cancel() }

    /// Stops the loop and waits for its thread to end, unless called from that thread (from `onChange`): then the
    /// loop ends once `onChange` returns.
    func cancel() {
        let context = self.context
        context.condition.lock()
        let first = !context.cancelled
        context.cancelled = true
        let onOwnThread = context.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        context.condition.unlock()
        if first {
            var byte: UInt8 = 1
            _ = write(context.wakeWrite, &byte, 1)
        }
        guard !onOwnThread else { return }
        context.condition.lock()
        while !context.finished { context.condition.wait() }
        context.condition.unlock()
    }
}
