import Foundation
import TestSupport
import Testing

/// On Apple's platforms `import Foundation` also brings Security's names into scope; on Linux it cannot. The
/// README's Security section says so, gives the fix, and quotes the compiler's message so that searching for it
/// finds the section. This test compiles a file that forgets `import Security` and checks the README quotes what
/// the compiler says.
@Suite struct ImportGuideTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    @Test func theReadmeQuotesTheCompilersMessageAndTheFix() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let start = try #require(text.range(of: "## `Security`"))
        let end = text.range(of: "\n## ", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
        let section = String(text[start.lowerBound..<end])

        let directory = try TemporaryDirectory()
        let source = directory.file("forgot.swift")
        try Data(
            """
            import Foundation
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]

            """.utf8
        ).write(to: source)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", source.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let diagnostics = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus != 0)
        let message = "cannot find 'kSecClass' in scope"
        #expect(diagnostics.contains("error: \(message)"), "\(diagnostics)")
        #expect(section.contains(message))
        #expect(section.contains("import Security"))
    }
}
