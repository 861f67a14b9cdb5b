import Foundation
import Keychain

/// Which keychain a verb works on: a keychain argument as macOS's tool takes it, mapped to a keychain directory.
///
/// macOS names keychain files; a swift-keychain keychain is a directory. So:
/// - no argument: the default keychain: keychaind's when a daemon serves it (`KEYCHAIN_DAEMON`, the default socket,
///   or root's `--user`; see ``DefaultKeychain``), else the embedded one in `$KEYCHAIN_HOME`, else
///   `$XDG_DATA_HOME/swift-keychain`, else `~/.local/share/swift-keychain`, created on first use;
/// - an argument with a `/` in it (`./ci`, `/srv/app/keychain`): that directory;
/// - `login` (also `login.keychain`, `login.keychain-db`, as macOS scripts write it): the default keychain, through
///   the daemon too when it serves the default one;
/// - any other bare name, such as `ci` or `ci.keychain`: `keychains/ci` inside the default keychain's directory,
///   as macOS keeps named keychains in `~/Library/Keychains` (the `.keychain` and `.keychain-db` suffixes are
///   dropped, so both spellings name one keychain).
struct KeychainLocation: Hashable {
    /// The directory an argument named, `nil` for the default keychain's (computed when asked: through keychaind
    /// no command needs it, and a short command should not pay for reading the environment and making a URL).
    private let namedDirectory: URL?
    /// The keychain's directory.
    var directory: URL { namedDirectory ?? Keychain.defaultDirectory }
    /// The argument as typed, `nil` for the default keychain (macOS's messages quote it as typed).
    let argument: String?
    /// keychaind serving the keychain, or `nil` when this process opens `directory` itself (every keychain named by
    /// a path or a name stays embedded; only the default one moves to the daemon).
    var daemon: DaemonTarget? = nil
    /// The default keychain.
    static var standard: KeychainLocation { standard(argument: nil) }

    /// The default keychain, named by `argument` (`login`) or by none.
    private static func standard(argument: String?) -> KeychainLocation {
        KeychainLocation(namedDirectory: nil, argument: argument, daemon: DefaultKeychain.daemon)
    }

    /// Whether this is the default keychain, which is created on first use; others must exist. Computed when
    /// asked, so a keychain named by its path costs no look at the environment.
    var isDefault: Bool { daemon != nil || namedDirectory.map { $0.path == Keychain.defaultDirectory.path } ?? true }

    /// The keychain an argument names. Throws a usage failure for an empty name or `.`/`..`.
    static func named(_ argument: String) throws(ToolFailure) -> KeychainLocation {
        if argument.contains("/") {
            let url = URL(fileURLWithPath: argument, isDirectory: true).standardizedFileURL
            return KeychainLocation(namedDirectory: url, argument: argument)
        }
        var name = argument
        for suffix in [".keychain-db", ".keychain"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
            break
        }
        guard !name.isEmpty, name != ".", name != ".." else {
            throw .usage("\"\(argument)\" is not a keychain name")
        }
        if name == "login" { return standard(argument: argument) }
        let directory = namedKeychains.appendingPathComponent(name, isDirectory: true)
        return KeychainLocation(namedDirectory: directory, argument: argument)
    }

    /// Where keychains named by a bare name live: `keychains` in the default keychain's directory.
    static var namedKeychains: URL {
        Keychain.defaultDirectory.appendingPathComponent("keychains", isDirectory: true)
    }

    /// The keychains positional arguments name, or the default keychain when there are none.
    static func all(_ arguments: [String]) throws(ToolFailure) -> [KeychainLocation] {
        guard !arguments.isEmpty else { return [.standard] }
        var locations: [KeychainLocation] = []
        for argument in arguments { locations.append(try named(argument)) }
        return locations
    }

    /// The keychain at most one positional argument names (the default one when there is none). More than one
    /// is a usage error.
    static func single(_ arguments: [String]) throws(ToolFailure) -> KeychainLocation {
        guard arguments.count <= 1 else {
            throw .usage("one keychain at most, but \(arguments.count) were given: \(arguments.joined(separator: " "))")
        }
        return try arguments.first.map(named) ?? .standard
    }

    /// The directory's path, as `keychain:` lines print it, or `keychaind at SOCKET` for the daemon's keychain.
    var path: String { daemon?.description ?? directory.path }

    /// The name as macOS's messages print it: the argument as typed, or `fallback` for the default keychain
    /// (`<default>`, `<NULL>` or `default`, depending on the message).
    func name(or fallback: String) -> String { argument ?? fallback }
}
