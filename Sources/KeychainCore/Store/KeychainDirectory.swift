import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of an on-disk keychain: a 0700 directory holding the database and the device key, each 0600.
struct KeychainDirectory {
    /// The directory.
    let url: URL

    /// The database file.
    var databasePath: String { url.appendingPathComponent("keychain.db").path }
    /// The device key file.
    var deviceKeyPath: String { url.appendingPathComponent("device.key").path }

    /// Creates the directory and its missing parents (0700) when missing, refuses it when others own or could
    /// tamper with it or its files (KeychainDirectory+Permissions.swift), and creates the database file (0600) so
    /// SQLite and its WAL inherit that mode.
    func prepare() throws(EngineError) {
        try createDirectories()
        try checkPermissions()
        let descriptor = open(databasePath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw EngineError(.ioError, "cannot create the keychain database \(databasePath): \(Self.systemError())")
        }
        close(descriptor)
    }

    /// Fsyncs the directory so that a rename or link in it is durable.
    func syncDirectory() {
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// The text of `errno`.
    static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
