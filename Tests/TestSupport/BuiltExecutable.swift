import Foundation

/// The package's executables, built beside the test bundle (`swift build --build-tests` builds them all).
public enum BuiltExecutable {
    /// The executable `name` in the test bundle's directory.
    public static func named(_ name: String) -> URL {
        let tests =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: tests).deletingLastPathComponent().appendingPathComponent(name)
    }
}
