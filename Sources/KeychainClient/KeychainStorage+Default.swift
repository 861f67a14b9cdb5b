import Foundation
import KeychainCore
import KeychainWire

/// The storage rule: where a process's keychain is when it names none (DESIGN §10), which needs to know keychaind's
/// socket, so it lives with the client.
extension KeychainStorage {
    /// Where a process's keychain is when it names none (DESIGN §10). The one root every API's default comes from.
    ///
    /// - A process started with `AT_SECURE` (`ProcessEnvironment/isSecureExecution`: a setgid registered app):
    ///   keychaind at its default socket, always, whatever its environment says (it reads none). While the daemon
    ///   is down, or not installed, its calls fail with `EngineError/Code/notAvailable` naming the socket: such a
    ///   process never has an embedded keychain.
    /// - `KEYCHAIN_DAEMON=off`: the embedded keychain in `defaultDirectory(environment:)`;
    /// - `KEYCHAIN_DAEMON=PATH`: keychaind at that socket;
    /// - unset: the embedded keychain when `KEYCHAIN_HOME` names a directory (an explicit choice); else keychaind
    ///   at the default socket when keychaind is installed (`DaemonSocket/isInstalled`: its socket exists),
    ///   else the embedded keychain in the default directory.
    ///
    /// A process whose keychain is keychaind's never moves to an embedded one: while the daemon is down, restarting
    /// or refusing the connection, calls fail with `EngineError/Code/notAvailable` naming the socket, and connect
    /// again by themselves once it is back. Nothing here connects: the choice costs one `lstat`.
    public static func defaultStorage(environment: ProcessEnvironment = .current) -> KeychainStorage {
        if ProcessEnvironment.isSecureExecution { return .daemon(socketPath: DaemonSocket.defaultPath) }
        switch environment["KEYCHAIN_DAEMON"] {
        case "off":
            return .directory(defaultDirectory(environment: environment))
        case let path? where !path.isEmpty:
            return .daemon(socketPath: path)
        default:
            if environment.nonEmpty("KEYCHAIN_HOME") != nil {
                return .directory(defaultDirectory(environment: environment))
            }
            if DaemonSocket.isInstalled { return .daemon(socketPath: DaemonSocket.defaultPath) }
            return .directory(defaultDirectory(environment: environment))
        }
    }

    /// The process's keychain when it names none: ``defaultStorage(environment:)`` of the process's environment,
    /// decided once, the first time any API asks (swift-log's bootstrap, adapted), so every API of the process —
    /// `Keychain`, `Security`, `FileProtection`, `LAContext`, the `security` command — uses the same one for its
    /// whole life. Inside ``$processDefaultOverride``'s `withValue`, the value given (tests run code that uses the
    /// defaults against a temporary directory or a test daemon without touching the process's environment).
    public static var processDefault: KeychainStorage {
        processDefaultOverride ?? resolvedProcessDefault
    }

    /// A storage that ``processDefault`` answers instead, for the task that sets it (tests).
    @TaskLocal public static var processDefaultOverride: KeychainStorage?
}

/// The process's default, decided at its first use.
private let resolvedProcessDefault = KeychainStorage.defaultStorage(environment: .current)
