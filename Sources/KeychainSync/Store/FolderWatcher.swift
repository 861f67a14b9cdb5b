import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A ``FolderStore``'s watch: inotify on the folder and every record directory in it (those created later too),
/// and a listing every ``FolderStore/pollInterval`` seconds compared with the last, because a network file system
/// reports no other machine's writes to inotify.
///
/// Before each call it lists the folder, so the next poll compares against what the caller can have seen: a change
/// inotify missed is caught at the next poll, and none is reported twice. Events for entries that are not records
/// (temporary files, a file-sync tool's own) are not reported.
enum FolderWatcher {
    /// Starts watching `store`'s folder; with `usesInotify: false`, by polling alone.
    static func start(
        _ store: FolderStore, usesInotify: Bool, onChange: @escaping @Sendable () -> Void
    ) throws(SyncStoreError) -> WatchThread {
        // Without inotify (a kernel or container that refuses it), the poll still works.
        let inotify = usesInotify ? inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) : -1
        // Watched and listed before this returns: a change made after it is never missed.
        var directories: [Int32: String] = [:]
        if inotify >= 0 { watchTree(store.path, inotify: inotify, directories: &directories) }
        let snapshot = try? store.list(prefix: "")
        do throws(SyncStoreError) {
            return try WatchThread(name: "swift-keychain folder store watch", onChange: onChange) {
                [directories] context in
                Self.run(store, inotify: inotify, directories: directories, snapshot: snapshot, context: context)
            }
        } catch {
            if inotify >= 0 { close(inotify) }
            throw error
        }
    }

    private static let mask = UInt32(
        IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)

    private static func run(
        _ store: FolderStore, inotify: Int32, directories: [Int32: String], snapshot: [String]?,
        context: WatchThread.Context
    ) {
        defer { if inotify >= 0 { close(inotify) } }
        var directories = directories
        var snapshot = snapshot
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var nextPoll = Date(timeIntervalSinceNow: store.pollInterval)
        while !context.isCancelled {
            var descriptors = [pollfd(fd: context.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            if inotify >= 0 { descriptors.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            let timeout = Int32(max(0, min(nextPoll.timeIntervalSinceNow, store.pollInterval)) * 1000)
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0, errno != EINTR { return }
            if descriptors[0].revents != 0 { return }
            var changed = false
            if descriptors.count > 1, descriptors[1].revents != 0 {
                changed = readEvents(inotify, root: store.path, buffer: &buffer, directories: &directories)
                // A writer often makes several changes in a row: let them land and report them once.
                guard context.sleep(0.01) else { return }
                changed = readEvents(inotify, root: store.path, buffer: &buffer, directories: &directories) || changed
            }
            if nextPoll.timeIntervalSinceNow <= 0 {
                nextPoll = Date(timeIntervalSinceNow: store.pollInterval)
                if inotify >= 0 { watchTree(store.path, inotify: inotify, directories: &directories) }
                changed = changed || (try? store.list(prefix: "")) != snapshot
            }
            guard changed else { continue }
            snapshot = try? store.list(prefix: "")
            context.notify()
        }
    }

    /// Reads the pending events; returns whether any touched a record or a record directory. Record directories
    /// that appeared are watched (with what is in them already), and the whole tree again after an overflow.
    private static func readEvents(
        _ inotify: Int32, root: String, buffer: inout [UInt8], directories: inout [Int32: String]
    ) -> Bool {
        var changed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + Int(event.len))]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    watchTree(root, inotify: inotify, directories: &directories)
                    changed = true
                    continue
                }
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    directories[event.wd] = nil
                    continue
                }
                guard let directory = directories[event.wd] else { continue }
                if event.mask & UInt32(IN_ISDIR) != 0 {
                    guard FolderLayout.segment(ofDirectory: name) != nil else { continue }
                    if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                        watchTree(directory + "/" + name, inotify: inotify, directories: &directories)
                    }
                    changed = true
                } else if name.isEmpty || FolderLayout.recordSegment(ofFile: name) != nil {
                    // An empty name is the watched directory itself (removed or moved away).
                    changed = true
                }
            }
        }
    }

    /// Watches `directory` and every record directory under it (a watch already there is kept).
    private static func watchTree(_ directory: String, inotify: Int32, directories: inout [Int32: String]) {
        let descriptor = inotify_add_watch(inotify, directory, mask)
        guard descriptor >= 0 else { return }
        directories[descriptor] = directory
        guard let stream = opendir(directory) else { return }
        var subdirectories: [String] = []
        while let entry = readdir(stream) {
            let name = FolderLayout.name(of: entry)
            if FolderLayout.segment(ofDirectory: name) != nil { subdirectories.append(name) }
        }
        closedir(stream)
        for name in subdirectories {
            var status = stat()
            let path = directory + "/" + name
            if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                watchTree(path, inotify: inotify, directories: &directories)
            }
        }
    }
}
