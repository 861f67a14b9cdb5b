import Foundation
import KeychainClient
import KeychainCore
import KeychainWire
import Security
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// keychaind serving a keychain: its socket, and the user whose keychain it is (`nil`: the caller's own).
struct DaemonTarget: Hashable {
    /// The daemon's socket.
    let socketPath: String
    /// Another user's keychain (root's `--user`), or `nil` for the caller's own.
    let user: UInt32?

    /// How messages name it: `keychaind at SOCKET`, and the user's uid when `--user` named one.
    var description: String {
        "keychaind at \(socketPath)" + (user.map { " for uid \($0)" } ?? "")
    }

    /// The process's client of the daemon for this keychain (one per socket and user).
    var client: DaemonClient { KeychainBackends.daemonClient(socketPath: socketPath, user: user) }
}

/// Where the default keychain is, decided once per process as every module decides it
/// (`KeychainStorage.defaultStorage(environment:)`: `KEYCHAIN_DAEMON`, `KEYCHAIN_HOME`, the default socket), or
/// as the global `--user` option set it.
enum DefaultKeychain {
    private static let chosen = Mutex<DaemonTarget??>(nil)

    /// keychaind serving the default keychain, or `nil` when it is the embedded one in `Keychain.defaultDirectory`.
    static var daemon: DaemonTarget? {
        chosen.withLock { chosen in
            if let decided = chosen { return decided }
            let decided: DaemonTarget? =
                switch KeychainStorage.processDefault {
                case .daemon(let socketPath): DaemonTarget(socketPath: socketPath, user: nil)
                case .directory, .inMemory: nil
                }
            chosen = .some(decided)
            return decided
        }
    }

    /// `--user NAME` (a user name or a uid): the default keychain becomes that user's, through keychaind at
    /// `KEYCHAIN_DAEMON` or the default socket, where a daemon must answer; with `KEYCHAIN_DAEMON=off`, their
    /// embedded one, the tool becoming that user (``EmbeddedUser``). Only root may.
    static func select(user argument: String) throws(ToolFailure) {
        let embedded = ProcessEnvironment.current["KEYCHAIN_DAEMON"] == "off"
        guard geteuid() == 0 else {
            // Already that user (the dynamic twin, handed a command after root's tool became them): nothing to do.
            if embedded, try userID(argument) == geteuid() { return }
            throw .failed(
                status: errSecMissingEntitlement,
                message: "--user \(argument): only root may use another user's keychain (run security as root)")
        }
        let uid = try userID(argument)
        if embedded {
            try EmbeddedUser.become(argument, uid: uid)
            chosen.withLock { $0 = .some(nil) }
            return
        }
        let socketPath = try daemonSocket(for: "--user \(argument): another user's keychain")
        chosen.withLock { $0 = .some(DaemonTarget(socketPath: socketPath, user: uid)) }
    }

    /// The socket of keychaind for what only the daemon does (`what`: another user's keychain, app registration):
    /// `KEYCHAIN_DAEMON`, else the default socket, whatever `KEYCHAIN_HOME` says; a daemon must answer there.
    static func daemonSocket(for what: String) throws(ToolFailure) -> String {
        let socketPath: String
        switch ProcessEnvironment.current["KEYCHAIN_DAEMON"] {
        case "off":
            throw .failed(
                status: errSecNotAvailable,
                message: "\(what) is reached through keychaind, and KEYCHAIN_DAEMON=off turns it off")
        case let path? where !path.isEmpty: socketPath = path
        default: socketPath = DaemonSocket.defaultPath
        }
        guard DaemonClient.answers(at: socketPath) else {
            throw .failed(
                status: errSecNotAvailable,
                message:
                    "\(what) is reached through keychaind, and no keychaind answers at \(socketPath) (start it, or set KEYCHAIN_DAEMON=SOCKET)"
            )
        }
        return socketPath
    }

    /// The uid a `--user` argument names: a user name from the password database, or a number.
    private static func userID(_ argument: String) throws(ToolFailure) -> UInt32 {
        if let entry = getpwnam(argument) { return entry.pointee.pw_uid }
        if let uid = UInt32(argument), uid != UInt32.max { return uid }
        // A static tool reads /etc/passwd only (StaticLinking): its dynamic twin asks every NSS source.
        DynamicTwin.handOff()
        let searched = StaticLinking.isStatic ? " in /etc/passwd" : ""
        throw .failed(
            status: errSecParam, message: "--user \(argument): no such user\(searched) (give a user name or a uid)")
    }
}
