#if canImport(Glibc)
    import Glibc
#endif

/// The environment variables the defaults are read from (`KEYCHAIN_HOME`, `KEYCHAIN_DAEMON`, …): the process's own,
/// each read with `getenv` when asked, or a given set (tests).
///
/// Not `ProcessInfo.environment`: that copies every variable into a new dictionary on each use, which costs a
/// short-lived command such as `security find-generic-password` about 0.2 ms the first time and 60 µs each time
/// after, for the three or four variables it reads.
public struct ProcessEnvironment: Sendable, ExpressibleByDictionaryLiteral {
    private let given: [String: String]?

    /// The process's environment, as it is when each variable is read.
    public static var current: ProcessEnvironment { ProcessEnvironment(given: nil) }

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

    /// The value of the variable `name`, or `nil` when it is not set.
    public subscript(name: String) -> String? {
        if let given { return given[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// The value of `name` when it is set and not empty.
    public func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
