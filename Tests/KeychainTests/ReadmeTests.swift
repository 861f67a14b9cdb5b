import Foundation
import TestSupport
import Testing

@testable import Keychain

@Suite("The README's example")
struct ReadmeTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("The README shows exactly ReadmeExample.swift, which this target compiles")
    func readmeMatchesCompiledExample() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(
            contentsOf: Self.repository.appendingPathComponent("Tests/KeychainTests/ReadmeExample.swift"),
            encoding: .utf8)
        let section = try #require(readme.range(of: "### The Keychain API"))
        let opening = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let closing = try #require(readme.range(of: "```\n", range: opening.upperBound..<readme.endIndex))
        #expect(String(readme[opening.upperBound..<closing.lowerBound]) == example)
    }

    @Test("The example runs against a keychain in $KEYCHAIN_HOME and leaves what it says", .timeLimit(.minutes(1)))
    func exampleRuns() async throws {
        let home = try TemporaryDirectory()
        try await Keychain.$environmentOverride.withValue(["KEYCHAIN_HOME": home.keychain.path]) {
            try await rememberSession()
            let keychain = Keychain(service: "com.example.api")
            #expect(try await keychain.get("alice") == "s3cret")
            #expect(try await keychain.get("session", as: Session.self)?.token == "t0k3n")
            let items = try await keychain.items(matching: GenericPassword.Query(service: "com.example.api"))
            #expect(items.map(\.accessibility) == [.afterFirstUnlock, .afterFirstUnlock])
        }
    }
}
