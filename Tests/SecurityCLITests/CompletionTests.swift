import Foundation
import TestSupport
import Testing

/// The bash completion in `completion/security.bash`, run by a real bash against the built tool: it offers the
/// verbs the tool lists and each verb's options from its own help.
@Suite(
    "bash completion for security",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash"), "bash is not installed"))
struct CompletionTests {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("completion/security.bash")

    /// What the completion offers for the command line `words`, completing the last one.
    private func completions(_ words: [String]) throws -> [String] {
        let tool = URL(fileURLWithPath: BuiltExecutable.named("security").path).deletingLastPathComponent().path
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let command =
            "export PATH='\(tool)':/usr/bin:/bin; source '\(Self.script.path)'; COMP_WORDS=(\(quoted)); "
            + "COMP_CWORD=\(words.count - 1); _security; printf '%s\\n' \"${COMPREPLY[@]}\""
        let (status, output, errors) = try StressProcess.runExecutable(
            URL(fileURLWithPath: "/bin/bash"), ["--noprofile", "--norc", "-c", command])
        #expect(status == 0, "\(errors)")
        return output.split(separator: "\n").map(String.init)
    }

    @Test("Verbs by prefix, after global options too; a verb's options from its help; nothing made up")
    func completes() throws {
        #expect(
            try Set(completions(["security", "find-"])) == [
                "find-certificate", "find-generic-password", "find-identity", "find-internet-password",
            ])
        #expect(try completions(["security", "-q", "unlock-"]) == ["unlock-keychain"])
        let options = try completions(["security", "find-generic-password", "-"])
        for option in ["-a", "-s", "-w", "--json", "--access-group"] { #expect(options.contains(option)) }
        #expect(try completions(["security", "no-such-verb-prefix"]).isEmpty)
    }
}
