import Foundation
import TestSupport
import Testing

/// Every verb the project's words name — an error message in the sources, a DocC page, the README, a man page —
/// is a verb the `security` tool has: a message that sends a user to a verb that does not exist is a defect.
@Suite("Every verb an error message or a doc names exists")
struct NamedVerbTests {
    /// The repository's root, from this file's place in it.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Words of a verb's shape that are not verbs of the tool, and what each is.
    private static let notVerbs: Set<String> = [
        "sync-drop-in",  // keychaind's option
        "sync-store-probe",  // a test executable
        "sync-changes", "backup-sizes", "backup-child",  // bench options
        "sync-conflict",  // a test's name for a kind of sync record
        "add-in", "set-up", "add-or-update", "delete-then-add",  // prose
        "add-large", "find-g",  // keychaind-probe's commands, and a word cut at a line end in a doc comment
        "set-keychain",  // a prefix the tool accepts for set-keychain-password, as macOS's does
    ]

    /// The verbs `security help` lists.
    private func verbs() throws -> Set<String> {
        let help = try TestHome().tool.run(["help"])
        return Set(
            help.output.split(separator: "\n").compactMap { line in
                line.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init)
            })
    }

    /// The files whose words are checked: Swift sources, DocC articles, the README and the man pages.
    private func checkedFiles() -> [URL] {
        var files = [Self.root.appendingPathComponent("README.md")]
        for folder in ["Sources", "man"] {
            guard
                let walker = FileManager.default.enumerator(
                    at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            else { continue }
            for case let url as URL in walker where ["swift", "md", "1", "8"].contains(url.pathExtension) {
                files.append(url)
            }
        }
        return files
    }

    @Test("Each verb-shaped word in the sources, DocC, README and man pages is a verb of the tool")
    func namedVerbsExist() throws {
        let known = try verbs()
        #expect(known.contains("set-keychain-password") && known.count > 30, "security help listed \(known)")
        let pattern = try NSRegularExpression(
            pattern:
                #"\b(?:set|add|find|delete|dump|create|show|unlock|lock|sync|protect|unprotect|verify|register|unregister|list|backup|restore|import|export)-[a-z]+(?:-[a-z]+)*\b"#
        )
        var unknown: [String: String] = [:]
        for file in checkedFiles() {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                guard let found = Range(match.range, in: text) else { continue }
                let word = String(text[found])
                if !known.contains(word), !Self.notVerbs.contains(word) {
                    unknown[word] = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                }
            }
        }
        #expect(unknown.isEmpty, "words naming verbs the tool does not have: \(unknown)")
    }
}
