import Foundation
import TestSupport
import Testing

/// On Apple's platforms `import Foundation` also brings Security's names into scope; on Linux it cannot. The porting
/// guide (Security's DocC) says so, gives the fix, and quotes the compiler's message so that searching for it finds
/// the page; the README's tour quotes it too. This test compiles a file that forgets `import Security` and checks
/// both quote what the compiler says.
@Suite struct ImportGuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The text of the repository's file at `path`, from `heading` to the next heading of the same level.
    private func section(_ heading: String, of path: String) throws -> String {
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        let start = try #require(text.range(of: heading), "\(path) has no \(heading)")
        let level = "\n" + heading.prefix(while: { $0 == "#" }) + " "
        let end = text.range(of: level, range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
        return String(text[start.lowerBound..<end])
    }

    @Test func theGuideAndTheReadmeQuoteTheCompilersMessageAndTheFix() throws {
        let guide = try section("## Add the module", of: "Sources/Security/Security.docc/PortingToLinux.md")
        let tour = try section("### Code written for iOS", of: "README.md")

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
        for quoted in [guide, tour] {
            #expect(quoted.contains(message))
            #expect(quoted.contains("import Security"))
        }
    }
}
