import Foundation

/// A temporary directory of one test's own, removed with everything in it when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory under the system's temporary directory.
    public init(prefix: String = "swift-keychain-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The keychain directory inside it (created by whoever opens it).
    public var keychain: URL { url.appendingPathComponent("keychain", isDirectory: true) }

    /// A copy of the directory and everything in it, in a temporary directory of its own (a copied disk).
    public func copy() throws -> TemporaryDirectory {
        let copy = try TemporaryDirectory()
        try FileManager.default.removeItem(at: copy.url)
        try FileManager.default.copyItem(at: url, to: copy.url)
        return copy
    }

    /// The names of the entries in the directory, sorted.
    public func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}
