import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes when a keychain's database files change on disk, so an engine notices other processes' writes within
/// milliseconds and without polling: inotify on the keychain directory (a write reaches the WAL, a checkpoint
/// the database), read by one thread that sleeps in `poll` until the kernel reports an event or ``stop()`` is
/// called.
///
/// Watching the directory rather than the files keeps working when SQLite creates or truncates the WAL.
final class DatabaseWatcher: @unchecked Sendable {
    // @unchecked: the descriptors are written once in `init`, and `stop()` only writes to the wake-up pipe, which
    // the thread closes with the rest after it has seen that.
    private let inotify: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts watching `directory`; `onChange` runs on the watcher's thread after each batch of events.
    init(directory: String, onChange: @escaping @Sendable () -> Void) throws(EngineError) {
        #if os(Linux)
            let inotify = inotify_init1(Int32(IN_CLOEXEC))
            guard inotify >= 0 else { throw Self.failure("inotify_init1", directory) }
            let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE)
            guard inotify_add_watch(inotify, directory, mask) >= 0 else {
                let error = Self.failure("inotify_add_watch", directory)
                close(inotify)
                throw error
            }
            var pipeEnds: [Int32] = [-1, -1]
            guard pipe(&pipeEnds) == 0 else {
                let error = Self.failure("pipe", directory)
                close(inotify)
                throw error
            }
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            self.inotify = inotify
            (wakeRead, wakeWrite) = (pipeEnds[0], pipeEnds[1])
            let thread = Thread { [inotify, wakeRead, wakeWrite] in
                Self.run(inotify: inotify, wakeRead: wakeRead, wakeWrite: wakeWrite, onChange: onChange)
            }
            thread.name = "swift-keychain watcher"
            thread.start()
        #else
            throw EngineError(.unimplemented, "watching \(directory) for other processes' writes needs Linux")
        #endif
    }

    /// Stops the thread; it closes every descriptor on its way out.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    #if os(Linux)
        private static func run(
            inotify: Int32, wakeRead: Int32, wakeWrite: Int32, onChange: @Sendable () -> Void
        ) {
            defer {
                close(inotify)
                close(wakeRead)
                close(wakeWrite)
            }
            var descriptors = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            // Room for many events at once; their contents do not matter, only that something changed.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                descriptors[0].revents = 0
                descriptors[1].revents = 0
                let ready = poll(&descriptors, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if descriptors[1].revents != 0 { return }
                guard descriptors[0].revents & Int16(POLLIN) != 0 else {
                    if descriptors[0].revents != 0 { return }  // POLLERR / POLLHUP / POLLNVAL: nothing more to read
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count < 0, errno != EINTR, errno != EAGAIN { return }
                if count > 0 { onChange() }
            }
        }
    #endif

    private static func failure(_ call: String, _ directory: String) -> EngineError {
        EngineError(
            .ioError, "cannot watch the keychain directory \(directory) (\(call)): \(String(cString: strerror(errno)))")
    }
}
