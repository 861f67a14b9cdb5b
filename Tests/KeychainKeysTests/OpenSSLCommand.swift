import Foundation
import TestSupport

/// The `openssl` command (Debian's `openssl`, installed with libssl-dev's tools by scripts/bootstrap): the other
/// side of every interoperability test.
enum OpenSSLCommand {
    static let path = "/usr/bin/openssl"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `openssl` with `arguments`; its standard output, or an error with its standard error.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let (status, output, errors) = try StressProcess.runExecutable(URL(fileURLWithPath: path), arguments)
        guard status == 0 else { throw CommandFailure(arguments: arguments, status: status, errors: errors) }
        return output
    }

    /// Whether `openssl` exits with 0 (a verification that fails exits with 1).
    static func succeeds(_ arguments: [String]) throws -> Bool {
        try StressProcess.runExecutable(URL(fileURLWithPath: path), arguments).status == 0
    }

    struct CommandFailure: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let errors: String
        var description: String { "openssl \(arguments.joined(separator: " ")) exited \(status): \(errors)" }
    }
}
