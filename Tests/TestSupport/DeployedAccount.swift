import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How a test runs keychaind as `systemd/keychaind.service` does: the `keychaind` system user (`User=`, `Group=`),
/// no supplementary groups, only `CAP_SYS_PTRACE` (`CapabilityBoundingSet=`, `AmbientCapabilities=`), no new
/// privileges (`NoNewPrivileges=yes`), the environment systemd gives a service of that user. The daemon sets its
/// own umask (0077, as `UMask=` does).
enum DeployedAccount {
    static let name = "keychaind"
    static let setpriv = "/usr/bin/setpriv"
    static let useradd = "/usr/sbin/useradd"

    /// The system user's ids.
    struct User: Sendable {
        let uid: UInt32
        let gid: UInt32
    }

    /// The `keychaind` user, created once per test process if missing (as `make install` creates it).
    static let user: Result<User, DaemonStartError> = {
        // Other test processes (or `make install`) may create it at the same moment: useradd then fails on its
        // lock or on the name, and the user is there soon after.
        var failure = ""
        for _ in 0..<100 {
            if let entry = getpwnam(name) {
                return .success(User(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid))
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: useradd)
            process.arguments = [
                "--system", "--user-group", "--no-create-home", "--home-dir", "/var/lib/swift-keychain",
                "--shell", "/usr/sbin/nologin", name,
            ]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                return .failure(DaemonStartError(log: "cannot run \(useradd): \(error)"))
            }
            let output = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            failure = String(decoding: output, as: UTF8.self)
            if process.terminationStatus != 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        return .failure(DaemonStartError(log: "useradd could not create the \(name) user: \(failure)"))
    }()

    /// What systemd puts in the environment of a service that runs as `User=keychaind` (and nothing else).
    static let environment = [
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "HOME": "/var/lib/swift-keychain",
        "USER": name, "LOGNAME": name, "SHELL": "/usr/sbin/nologin",
    ]

    /// Makes `directory` (the socket's and the state directory's) the daemon user's, reachable by every user the
    /// tests connect as, and returns the command line that runs `executable` as deployed: a copy of it in
    /// `directory` when the user cannot reach the built one (a checkout in root's home).
    static func prepare(directory: TemporaryDirectory, executable: String) throws -> [String] {
        let user = try user.get()
        guard chown(directory.url.path, user.uid, user.gid) == 0, chmod(directory.url.path, 0o755) == 0 else {
            throw DaemonStartError(log: "cannot give \(directory.url.path) to the \(name) user: errno \(errno)")
        }
        let program = try reachable(executable, copyIn: directory)
        return [
            setpriv, "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups",
            "--bounding-set=-all,+sys_ptrace", "--inh-caps=-all,+sys_ptrace", "--ambient-caps=-all,+sys_ptrace",
            "--no-new-privs", "--", program,
        ]
    }

    /// `executable`, or a copy of it in `directory` when other users cannot reach it.
    static func reachable(_ executable: String, copyIn directory: TemporaryDirectory) throws -> String {
        guard !isReachableByOthers(executable) else { return executable }
        let copy = directory.file(URL(fileURLWithPath: executable).lastPathComponent).path
        if !FileManager.default.fileExists(atPath: copy) {
            try ExecutableCopy.copy(executable, to: copy)
        }
        chmod(copy, 0o755)
        return copy
    }

    /// Whether a user other than the owner can run `path`: every directory above it searchable by others, the
    /// file readable and executable by them.
    private static func isReachableByOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o005 == 0o005 else { return false }
        var directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        while directory.path != "/" {
            guard stat(directory.path, &info) == 0, info.st_mode & 0o001 != 0 else { return false }
            directory.deleteLastPathComponent()
        }
        return true
    }
}
