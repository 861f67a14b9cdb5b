import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The environment variables the defaults are read from (`KEYCHAIN_HOME`, `KEYCHAIN_DAEMON`, …): the process's own,
/// each read when asked, or a given set (tests).
///
/// In a process the kernel started with `AT_SECURE` (a setgid registered app, any setuid program or one with file
/// capabilities: ``isSecureExecution``) the process's environment is someone else's choice, so every variable reads
/// as unset, as glibc's `secure_getenv` answers: the defaults are then the system's (keychaind at its default
/// socket, pinentry at a fixed path), whatever the caller set.
///
/// Not `ProcessInfo.environment`: that copies every variable into a new dictionary on each use, which costs a
/// short-lived command such as `security find-generic-password` about 0.2 ms the first time and 60 µs each time
/// after, for the three or four variables it reads.
public struct ProcessEnvironment: Sendable, ExpressibleByDictionaryLiteral {
    private let given: [String: String]?

    /// The process's environment, as it is when each variable is read; empty in a process started with `AT_SECURE`.
    public static var current: ProcessEnvironment { ProcessEnvironment(given: nil) }

    /// Whether the kernel started this process with `AT_SECURE` (setuid, setgid or file capabilities: the
    /// registered apps of keychaind among them). Such a process reads no variable of its environment (``current``
    /// is empty), uses keychaind at its default socket only, and runs pinentry only from a fixed path.
    public static let isSecureExecution = ck_is_secure_execution() != 0

    /// Exactly these variables, and no others.
    public init(_ variables: [String: String]) {
        given = variables
    }

    /// Exactly these variables, and no others.
    public init(dictionaryLiteral elements: (String, String)...) {
        given = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    private init(given: [String: String]?) {
        self.given = given
    }

    /// The value of the variable `name`, or `nil` when it is not set (always `nil` for the process's own
    /// environment in a process started with `AT_SECURE`).
    public subscript(name: String) -> String? {
        if let given { return given[name] }
        return ck_secure_getenv(name).map { String(cString: $0) }
    }

    /// The value of `name` when it is set and not empty.
    public func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The user's home directory: `HOME` when set, else the password database's entry for the real user (so a
    /// process started with `AT_SECURE` gets its user's own, never a caller's `HOME`).
    package var homeDirectory: String? {
        if let home = nonEmpty("HOME") { return home }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let path = String(cString: directory)
        return path.isEmpty ? nil : path
    }
}
