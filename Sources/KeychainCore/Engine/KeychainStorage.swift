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

    /// The default directory: `$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`, else
    /// `~/.local/share/swift-keychain` (the home directory from `HOME`, else the user's password entry).
    public static func defaultDirectory(environment: ProcessEnvironment = .current) -> URL {
        if let home = environment.nonEmpty("KEYCHAIN_HOME") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let data = environment.nonEmpty("XDG_DATA_HOME") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("swift-keychain")
        }
        let home = environment.homeDirectory ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share/swift-keychain", isDirectory: true)
    }
}
