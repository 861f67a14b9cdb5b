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

/// The zsh and fish completions (`completion/_security`, `completion/security.fish`), run by a real zsh and fish
/// against the built tool.
@Suite("zsh and fish completion for security")
struct ShellCompletionTests {
    private static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("completion")
    private static var toolDirectory: String {
        URL(fileURLWithPath: BuiltExecutable.named("security").path).deletingLastPathComponent().path
    }

    @Test(
        "zsh: verbs after global options, a verb's options from its help, files otherwise",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "zsh is not installed"))
    func zsh() throws {
        // Outside a completion widget, compadd and _files are stand-ins that print what they are given.
        func offered(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let command =
                "export PATH='\(Self.toolDirectory)':/usr/bin:/bin; compadd() { [[ $1 == -- ]] && shift; "
                + "print -l -- \"$@\" }; _files() { print '<files>' }; words=(\(quoted)); CURRENT=\(words.count); "
                + "source '\(Self.directory.appendingPathComponent("_security").path)'"
            let (status, output, errors) = try StressProcess.runExecutable(
                URL(fileURLWithPath: "/usr/bin/zsh"), ["-f", "-c", command])
            #expect(status == 0, "\(errors)")
            return output.split(separator: "\n").map(String.init)
        }
        let verbs = try offered(["security", "-q", "find-"])
        for verb in ["find-generic-password", "find-certificate", "backup-keychain"] { #expect(verbs.contains(verb)) }
        let options = try offered(["security", "find-generic-password", "-"])
        for option in ["-a", "-s", "-w", "--json", "--access-group"] { #expect(options.contains(option)) }
        #expect(try offered(["security", "import", "x"]) == ["<files>"])
    }

    @Test(
        "fish: verbs, a verb's options from its help",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "fish is not installed"))
    func fish() throws {
        func offered(_ line: String) throws -> [String] {
            let command =
                "set -x PATH '\(Self.toolDirectory)' /usr/bin /bin; "
                + "source '\(Self.directory.appendingPathComponent("security.fish").path)'; complete -C '\(line)'"
            let (status, output, errors) = try StressProcess.runExecutable(
                URL(fileURLWithPath: "/usr/bin/fish"), ["--no-config", "-c", command])
            #expect(status == 0, "\(errors)")
            return output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(
            try Set(offered("security find-")) == [
                "find-certificate", "find-generic-password", "find-identity", "find-internet-password",
            ])
        let options = try offered("security find-generic-password -")
        for option in ["-a", "-s", "-w", "--json", "--access-group"] { #expect(options.contains(option)) }
        #expect(try offered("security no-such-").isEmpty)
    }
}
