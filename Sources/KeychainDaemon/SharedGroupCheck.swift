import Foundation
import KeychainCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the group an app is installed setgid to lends itself to anything else: a process holding the group is
/// the app's, so no user may hold it (a member, by `/etc/group` or as primary group) and no other executable may
/// be setgid to it (running that one would give the group to code that is not the app).
///
/// Which executables are searched: the system's executable directories (``systemDirectories``, recursively, not
/// following links nor crossing into other mounted file systems below them) and the app's own directory. A user
/// cannot make a file setgid to a group they do not belong to (the kernel drops the bit, and `chgrp` needs
/// membership), so once the group has no members only root can make another such executable, and root installs
/// executables in those directories. An executable elsewhere (another user's home, a directory the daemon cannot
/// read) is not found: an administrator who puts one there shares the group knowingly.
enum SharedGroupCheck {
    /// The directories searched, besides the app's own.
    static let systemDirectories = [
        "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/libexec",
        "/usr/local/libexec", "/usr/lib", "/usr/local/lib", "/usr/games", "/opt",
    ]
    /// The most directory entries one search reads; past it the registration is refused, not waved through.
    static let entryLimit = 2_000_000

    /// Refuses `group` when it has members or an executable other than the one at `path` (device and inode
    /// `app`) is setgid to it, naming them.
    static func check(
        executable path: String, app: (device: UInt64, inode: UInt64), group: UInt32,
        directories: [String] = systemDirectories
    ) throws(EngineError) {
        let members = Self.members(of: group)
        guard members.isEmpty else {
            throw EngineError(
                .param,
                "the executable \(path) is setgid to group \(group), which has members (\(members.joined(separator: ", "))): "
                    + "any of them holds the group and would be taken for the app; install it setgid to a group of its "
                    + "own, with no members")
        }
        var search = Search(group: group, app: app)
        for directory in directories { try search.walk(directory, recursive: true) }
        try search.walk(URL(fileURLWithPath: path).deletingLastPathComponent().path, recursive: false)
        if let other = search.found.first {
            throw EngineError(
                .param,
                "the executable \(path) is setgid to group \(group), and so is \(other): running it would give the "
                    + "group to code that is not the app; install the app setgid to a group of its own")
        }
    }

    /// The users who hold `group` without an exec: its listed members and those whose primary group it is.
    static func members(of groupID: UInt32) -> [String] {
        var names: [String] = []
        withEntryBuffer { buffer, count in
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            guard getgrgid_r(groupID, &entry, buffer, count, &result) == 0, result != nil,
                var member = entry.gr_mem
            else { return }
            while let name = member.pointee {
                names.append(String(cString: name))
                member += 1
            }
        }
        // The password database is read with its one shared cursor: one reader at a time.
        passwordDatabase.withLock { _ in
            withEntryBuffer { buffer, count in
                setpwent()
                defer { endpwent() }
                var entry = passwd()
                var result: UnsafeMutablePointer<passwd>?
                while getpwent_r(&entry, buffer, count, &result) == 0, let found = result {
                    if found.pointee.pw_gid == groupID { names.append(String(cString: found.pointee.pw_name)) }
                }
            }
        }
        return names
    }

    private static let passwordDatabase = Mutex(())

    /// Room for one database entry's strings.
    private static func withEntryBuffer(_ body: (_ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Void) {
        let count = 1 << 16
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: count)
        defer { buffer.deallocate() }
        body(buffer, count)
    }

    /// One search for executables setgid to a group.
    private struct Search {
        let group: UInt32
        let app: (device: UInt64, inode: UInt64)
        var found: [String] = []
        var entries = 0
        var visited: Set<[UInt64]> = []

        init(group: UInt32, app: (device: UInt64, inode: UInt64)) {
            self.group = group
            self.app = app
        }

        /// Searches `path` (a directory, or a link to one): its files, and its subdirectories on the same file
        /// system when `recursive`.
        mutating func walk(_ path: String, recursive: Bool) throws(EngineError) {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
            try walk(path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), recursive: recursive)
        }

        private mutating func walk(_ path: String, device: UInt64, inode: UInt64, recursive: Bool) throws(EngineError) {
            guard visited.insert([device, inode]).inserted, let directory = opendir(path) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                entries += 1
                guard entries <= entryLimit else {
                    throw EngineError(
                        .param,
                        "searching for other executables setgid to group \(group) read more than \(entryLimit) entries "
                            + "(stopped in \(path)): the registration is refused rather than unchecked")
                }
                let child = path == "/" ? "/\(name)" : "\(path)/\(name)"
                var info = stat()
                guard lstat(child, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG:
                    let isOther = UInt64(info.st_dev) != app.device || UInt64(info.st_ino) != app.inode
                    if isOther, info.st_mode & S_ISGID != 0, info.st_mode & 0o111 != 0, info.st_gid == group {
                        found.append(child)
                    }
                case S_IFDIR where recursive && UInt64(info.st_dev) == device:
                    try walk(child, device: device, inode: UInt64(info.st_ino), recursive: true)
                default: break
                }
            }
        }
    }
}
