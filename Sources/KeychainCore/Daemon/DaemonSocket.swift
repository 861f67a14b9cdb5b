import Foundation

/// Where clients find keychaind.
package enum DaemonSocket {
    /// The system daemon's socket (systemd's `keychaind.socket`).
    package static let defaultPath = "/run/swift-keychain/keychaind.sock"
}
