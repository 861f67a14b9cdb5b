import Foundation

/// Where a keychain lives.
public enum KeychainStorage: Sendable, Equatable {
    /// Files in a directory (created 0700 when missing).
    case directory(URL)
    /// Memory only: the same engine and rules, nothing written anywhere, gone when the engine is released.
    case inMemory

    /// The default directory: `$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`, else
    /// `~/.local/share/swift-keychain`.
    public static func defaultDirectory(environment: [String: String]) -> URL {
        if let home = environment["KEYCHAIN_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("swift-keychain")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share/swift-keychain", isDirectory: true)
    }
}
