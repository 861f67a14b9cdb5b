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

    @Test("Every relative link in the README names a file of the repository, and every DocC article is linked")
    func readmeLinksResolve() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\]\(([^)]+)\)"#)
        var linked: Set<String> = []
        for match in pattern.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)) {
            guard let range = Range(match.range(at: 1), in: readme) else { continue }
            let target = String(readme[range])
            guard !target.contains("://") else { continue }
            linked.insert(target)
            #expect(
                FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(target).path),
                "the README links \(target), which does not exist")
        }
        // The articles of every catalog (a catalog's landing page has the module's name; its symbol pages, such as
        // KeychainType.md, are extensions of a symbol's page, not articles).
        let sources = Self.repository.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let catalog = "Sources/\(module)/\(module).docc"
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: "\(Self.repository.path)/\(catalog)")
            else { continue }
            for file in files where file.hasSuffix(".md") && file != "\(module).md" {
                let text = try String(
                    contentsOf: Self.repository.appendingPathComponent("\(catalog)/\(file)"), encoding: .utf8)
                guard !text.hasPrefix("# ``") else { continue }
                #expect(linked.contains("\(catalog)/\(file)"), "the README does not link \(catalog)/\(file)")
            }
        }
    }
}
