import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where clients find keychaind.
package enum DaemonSocket {
    /// The system daemon's socket (systemd's `keychaind.socket`). A constant: nothing a process reads moves it.
    package static let defaultPath = "/run/swift-keychain/keychaind.sock"

    /// Whether keychaind is installed: a socket exists at ``defaultPath``, whether or not a daemon answers there now.
    ///
    /// systemd's `keychaind.socket` makes it when it starts listening (at boot, once enabled) and removes it when
    /// stopped (`RemoveOnStop=yes`); a keychaind started by hand makes it and leaves it behind when it dies; `/run`
    /// is emptied at boot. So a daemon that is down, restarting or refusing connections still counts as installed,
    /// and a program that uses it waits for it (``EngineError/Code/notAvailable``) rather than put secrets in an
    /// embedded keychain the daemon will never see.
    package static var isInstalled: Bool {
        var status = stat()
        return lstat(defaultPath, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
    }
}
