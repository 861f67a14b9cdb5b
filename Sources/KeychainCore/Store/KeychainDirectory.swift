import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of an on-disk keychain: a 0700 directory holding the database and the device key, each 0600.
package struct KeychainDirectory {
    /// The directory.
    package let url: URL

    /// The keychain directory at `url`.
    package init(url: URL) {
        self.url = url
    }

    /// The database file.
    var databasePath: String { url.appendingPathComponent("keychain.db").path }
    /// The device key file.
    var deviceKeyPath: String { url.appendingPathComponent("device.key").path }
    /// The high-water mark file (``HighWaterMark``).
    var highWaterMarkPath: String { url.appendingPathComponent("keychain.hwm").path }

    /// Creates the directory and its missing parents (0700) when missing, and refuses it when others own or could
    /// tamper with it or its files (KeychainDirectory+Permissions.swift). The database is not created here: a new
    /// keychain is built under temporary names and linked into place (`Engine+Open.swift`). Returns the directories
    /// it made, outermost first, for ``removeMade(_:)`` to take back when the keychain cannot be built.
    @discardableResult
    func prepare() throws(EngineError) -> [String] {
        let made = try createDirectories()
        do throws(EngineError) {
            try checkPermissions()
        } catch {
            removeMade(made)
            throw error
        }
        return made
    }

    /// Removes directories ``prepare()`` made, innermost first, each only while it is empty (another process may
    /// have built a keychain in it meanwhile).
    func removeMade(_ made: [String]) {
        for path in made.reversed() where rmdir(path) != 0 && errno != ENOENT { return }
        if let outermost = made.first {
            KeychainDirectory(url: URL(fileURLWithPath: outermost).deletingLastPathComponent()).syncDirectory()
        }
    }

    /// Whether the database file exists.
    var databaseExists: Bool {
        var status = stat()
        return lstat(databasePath, &status) == 0
    }

    /// Whether the database holds nothing at all: an empty file, as earlier builds created before filling it, with
    /// no WAL content either.
    var databaseIsEmpty: Bool {
        Self.size(of: databasePath) == 0 && (Self.size(of: databasePath + "-wal") ?? 0) == 0
    }

    /// Creates a new, empty, 0600 file at `path`, failing if anything is there.
    func createFile(at path: String) throws(EngineError) {
        try FileDescriptor<EngineError>.createExclusively(path).close()
    }

    /// Fsyncs a file's contents.
    func syncFile(at path: String) throws(EngineError) {
        try FileDescriptor<EngineError>.open(path, O_RDONLY | O_NOFOLLOW).synchronize()
    }

    private static func size(of path: String) -> Int? {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// Fsyncs the directory so that a rename or link in it is durable.
    func syncDirectory() {
        try? FileDescriptor<EngineError>.synchronizeDirectory(url.path)
    }

    /// The text of `errno`.
    static func systemError() -> String {
        String(cString: strerror(errno))
    }

    /// The status of `errno` after a failed write: a full disk or quota, a read-only file system, or I/O.
    static func systemErrorCode() -> EngineError.Code {
        EngineError.systemCode(errno)
    }
}
