import Foundation
import TestSupport
import Testing

/// The manual pages in `man/`: every verb the tool accepts has its section, every option of keychaind is listed,
/// and groff renders both without a warning.
@Suite("man pages: security(1) and keychaind(8)")
struct ManPageTests {
    private static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("man", isDirectory: true)

    private func output(of executable: String, _ arguments: [String]) throws -> String {
        let (_, output, errors) = try StressProcess.runExecutable(URL(fileURLWithPath: executable), arguments)
        return output + errors
    }

    @Test("Every verb `security help` lists has a section in security(1), with its usage")
    func everyVerb() throws {
        let page = try String(contentsOf: Self.pages.appendingPathComponent("security.1"), encoding: .utf8)
        let verbs = try output(of: BuiltExecutable.named("security").path, ["help"]).split(separator: "\n")
            .compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) }
        #expect(verbs.count > 20)
        for verb in verbs {
            let escaped = verb.replacingOccurrences(of: "-", with: "\\-")
            #expect(page.contains(".SS \(escaped)\n"), "security(1) has no section for \(verb)")
        }
    }

    @Test("Every option keychaind --help prints is in keychaind(8)")
    func everyDaemonOption() throws {
        let page = try String(contentsOf: Self.pages.appendingPathComponent("keychaind.8"), encoding: .utf8)
        let help = try output(of: BuiltExecutable.named("keychaind").path, ["--help"])
        let options = Set(help.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("--") })
        #expect(options.count > 10)
        for option in options {
            #expect(page.contains(option.replacingOccurrences(of: "-", with: "\\-")), "keychaind(8) lacks \(option)")
        }
    }

    @Test("Every option keychain-secret-service --help prints is in keychain-secret-service(1)")
    func secretServicePage() throws {
        let page = try String(
            contentsOf: Self.pages.appendingPathComponent("keychain-secret-service.1"), encoding: .utf8)
        let help = try output(of: BuiltExecutable.named("keychain-secret-service").path, ["--help"])
        let options = help.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "[" || $0 == "]" })
            .filter { $0.hasPrefix("--") }
        #expect(!options.isEmpty)
        for option in options {
            #expect(page.contains(option.replacingOccurrences(of: "-", with: "\\-")), "the page lacks \(option)")
        }
    }

    @Test(
        "groff renders every page with every warning on and none given",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "groff is not installed"))
    func rendersCleanly() throws {
        for page in ["security.1", "keychaind.8", "keychain-secret-service.1"] {
            let rendered = try output(
                of: "/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", Self.pages.appendingPathComponent(page).path])
            #expect(rendered.isEmpty, "\(page): \(rendered)")
        }
    }
}
