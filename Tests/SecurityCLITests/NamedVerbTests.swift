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
        "create-home",  // useradd's --create-home (scripts/postgres-test-server)
    ]

    /// The verbs `security help` lists.
    private func verbs() throws -> Set<String> {
        let help = try TestHome().tool.run(["help"])
        return Set(
            help.output.split(separator: "\n").compactMap { line in
                line.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init)
            })
    }

    /// The files whose words are checked: Swift sources, every DocC article (the guides for porting, app secrets and
    /// operators included), the README, DESIGN.md, the man pages, the systemd units and the scripts.
    private func checkedFiles() -> [URL] {
        var files = ["README.md", "DESIGN.md"].map { Self.root.appendingPathComponent($0) }
        let extensions: Set<String> = ["swift", "md", "1", "8", "service", "socket", ""]
        for folder in ["Sources", "man", "systemd", "scripts"] {
            guard
                let walker = FileManager.default.enumerator(
                    at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            else { continue }
            for case let url as URL in walker where extensions.contains(url.pathExtension) {
                files.append(url)
            }
        }
        return files
    }

    /// Words that follow `security ` in the checked files without being a command line: prose.
    private static let notCommands: Set<String> = [
        "wants"  // the prompt's "`security wants to use your keychain`" (KeychainPrompts)
    ]

    @Test("Every DocC catalog's articles are among the checked files")
    func articlesAreChecked() throws {
        let checked = Set(checkedFiles().map(\.standardizedFileURL.path))
        let articles = [
            "Sources/Security/Security.docc/PortingToLinux.md",
            "Sources/Keychain/Keychain.docc/StoringAppSecrets.md",
            "Sources/KeychainSync/KeychainSync.docc/OperatingKeychaind.md",
            "Sources/Keychain/Keychain.docc/SecurityCommand.md",
        ].map { Self.root.appendingPathComponent($0).standardizedFileURL.path }
        for article in articles {
            #expect(FileManager.default.fileExists(atPath: article), "\(article) is missing")
            #expect(checked.contains(article), "\(article) is not checked")
        }
    }

    @Test("Each `security VERB` command line in the docs, README, man pages, units and sources runs a verb")
    func commandLinesNameVerbs() throws {
        let known = try verbs()
        // `security`, then root's `--user NAME` when given, then the word the tool takes for a verb: at the start of a
        // line, after a backtick, `$`, `(`, `sudo ` or a comment's `# `.
        let pattern = try NSRegularExpression(
            pattern: #"(?:^|[`$(]|sudo |# )security (?:--user[ =][^\s`]+ )?([a-z][a-z-]*)"#,
            options: [.anchorsMatchLines])
        var unknown: [String: String] = [:]
        for file in checkedFiles() {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let found = Range(match.range(at: 1), in: text) else { continue }
                let word = String(text[found])
                // A prefix of a verb runs that verb, as on macOS (`security find-g`).
                guard !known.contains(where: { $0.hasPrefix(word) }), !Self.notCommands.contains(word) else { continue }
                unknown[word] = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
            }
        }
        #expect(unknown.isEmpty, "command lines naming verbs the tool does not have: \(unknown)")
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
