import Foundation
import Synchronization

/// Where a keychain lives.
public enum KeychainStorage: Sendable, Equatable, CustomStringConvertible {
    /// Files in a directory (created 0700 when missing).
    case directory(URL)
    /// Memory only: the same engine and rules, nothing written anywhere, gone when the engine is released.
    case inMemory
    /// The calling user's keychain, kept by keychaind behind the socket at this path.
    case daemon(socketPath: String)

    /// Where it is, for messages: the directory's path, `keychaind at SOCKET`, or `memory`.
    public var description: String {
        switch self {
        case .directory(let url): url.path
        case .inMemory: "memory"
        case .daemon(let path): "keychaind at \(path)"
        }
    }

    /// Where a process's keychain is when it names none (DESIGN §10):
    /// - `KEYCHAIN_DAEMON=off`: the embedded keychain in ``defaultDirectory(environment:)``;
    /// - `KEYCHAIN_DAEMON=PATH`: keychaind at that socket (while it is down, calls fail with
    ///   ``EngineError/Code/notAvailable`` and connect again by themselves);
    /// - unset: the embedded keychain when `KEYCHAIN_HOME` names a directory (an explicit choice), else keychaind
    ///   at the default socket when a daemon answers there, else the embedded keychain in the default directory.
    ///   Once a daemon has answered, the process keeps using it (while it restarts, calls fail with
    ///   ``EngineError/Code/notAvailable``), so it never falls back to another keychain, and later values make no
    ///   round trip to find out.
    public static func defaultStorage(environment: ProcessEnvironment = .current) -> KeychainStorage {
        switch environment["KEYCHAIN_DAEMON"] {
        case "off":
            return .directory(defaultDirectory(environment: environment))
        case let path? where !path.isEmpty:
            return .daemon(socketPath: path)
        default:
            if environment.nonEmpty("KEYCHAIN_HOME") != nil {
                return .directory(defaultDirectory(environment: environment))
            }
            if defaultDaemonAnswers() { return .daemon(socketPath: DaemonSocket.defaultPath) }
            return .directory(defaultDirectory(environment: environment))
        }
    }

    /// The default directory: `$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`, else
    /// `~/.local/share/swift-keychain`.
    public static func defaultDirectory(environment: ProcessEnvironment = .current) -> URL {
        if let home = environment.nonEmpty("KEYCHAIN_HOME") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let data = environment.nonEmpty("XDG_DATA_HOME") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("swift-keychain")
        }
        let home = environment.nonEmpty("HOME") ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share/swift-keychain", isDirectory: true)
    }
}

/// Whether keychaind answered at the default socket: asked until it has (a connect to a missing socket costs
/// little), then remembered for the process.
private func defaultDaemonAnswers() -> Bool {
    if defaultDaemonAnswered.withLock({ $0 }) { return true }
    guard DaemonClient.answers(at: DaemonSocket.defaultPath) else { return false }
    defaultDaemonAnswered.withLock { $0 = true }
    return true
}

private let defaultDaemonAnswered = Mutex(false)
