import Foundation

/// The `openssl` command (Debian's `openssl`, installed with libssl-dev's tools by scripts/bootstrap): the other
/// side of every interoperability test.
public enum OpenSSLCommand {
    /// Where Debian installs it.
    public static let path = "/usr/bin/openssl"
    /// Whether it is installed (the tests that need it skip, saying so, when it is not).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `openssl` with `arguments`; its standard output, or an error with its standard error.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let (status, output, errors) = try StressProcess.runExecutable(URL(fileURLWithPath: path), arguments)
        guard status == 0 else { throw CommandFailure(arguments: arguments, status: status, errors: errors) }
        return output
    }

    /// Whether `openssl` exits with 0 (a verification that fails exits with 1).
    public static func succeeds(_ arguments: [String]) throws -> Bool {
        try StressProcess.runExecutable(URL(fileURLWithPath: path), arguments).status == 0
    }

    /// An `openssl` run that exited with another status than 0.
    public struct CommandFailure: Error, CustomStringConvertible {
        /// What it was given.
        public let arguments: [String]
        /// Its exit status.
        public let status: Int32
        /// Its standard error.
        public let errors: String
        /// The command, its status and its standard error.
        public var description: String { "openssl \(arguments.joined(separator: " ")) exited \(status): \(errors)" }
    }
}
