import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 9, item 8: output that cannot be written is a failure, never a silent exit 0.
@Suite("Reliability 8: a write error on standard output is a non-zero exit with a message")
struct OutputFailureTests {
    static func arguments(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

    @Test("Reliability 8: find-generic-password -w > /dev/full fails, saying why")
    func fullDevice() throws {
        let home = try TestHome()
        #expect(try home.tool.run(["add-generic-password", "-a", "alice", "-s", "api", "-w", "s3cret"]).status == 0)
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0, "/dev/full is missing")
        defer { close(full) }
        for arguments in [
            Self.arguments("find-generic-password", "-a", "alice", "-w"), Self.arguments("help"),
            Self.arguments("dump-keychain", "-d"),
        ] {
            let result = try home.tool.run(bytes: arguments, input: [], standardOutput: full)
            #expect(result.status != 0, "\(arguments.map { String(decoding: $0, as: UTF8.self) })")
            #expect(result.errors.contains("standard output"), "\(result.errors)")
            #expect(result.errors.contains("No space left on device"), "\(result.errors)")
        }
        let session = try home.tool.run(
            bytes: Self.arguments("-i"), input: Array("find-generic-password -a alice -w\n".utf8), standardOutput: full)
        #expect(session.status != 0)
        #expect(session.errors.contains("standard output"), "\(session.errors)")
    }

    @Test("Issue 20, item 9: every verb that prints secrets or data fails on a full or closed output, naming why")
    func everyPrintingVerb() throws {
        let home = try TestHome()
        for add in [
            ["add-generic-password", "-a", "alice", "-s", "api", "-w", "s3cret"],
            ["add-internet-password", "-a", "alice", "-s", "example.com", "-w", "s3cret"],
        ] {
            #expect(try home.tool.run(add).status == 0)
        }
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0, "/dev/full is missing")
        defer { close(full) }
        let verbs: [[String]] = [
            ["find-generic-password", "-a", "alice", "-w"], ["find-generic-password", "-a", "alice"],
            ["find-generic-password", "-a", "alice", "-g"], ["find-generic-password", "-a", "alice", "--json"],
            ["find-internet-password", "-a", "alice", "-w"], ["find-internet-password", "-a", "alice", "-g"],
            ["find-internet-password", "-a", "alice", "--json"], ["dump-keychain"], ["dump-keychain", "-d"],
            ["dump-keychain", "--json"], ["show-keychain-info"], ["verify-keychain"], ["verify-keychain", "--json"],
        ]
        for verb in verbs {
            let arguments = verb.map { Array($0.utf8) }
            for (output, reason) in [(full, "No space left on device"), (-1, "Bad file descriptor")] {
                let result = try home.tool.run(bytes: arguments, input: [], standardOutput: output)
                #expect(result.status != 0, "\(verb) into \(reason)")
                #expect(result.errors.contains("cannot write standard output: \(reason)"), "\(verb): \(result.errors)")
            }
        }
        // `-g` prints the password on standard error, as macOS does: a full standard error is an error too.
        for verb in [verbs[2], verbs[5]] {
            let result = try home.tool.run(verb, standardError: full)
            #expect(result.status != 0, "\(verb) with standard error full")
        }
    }

    @Test("Reliability 8: with standard output closed, the password is not lost silently and the keychain stays whole")
    func closedOutput() throws {
        let home = try TestHome()
        #expect(try home.tool.run(["add-generic-password", "-a", "alice", "-s", "api", "-w", "s3cret"]).status == 0)
        let result = try home.tool.run(
            bytes: Self.arguments("find-generic-password", "-a", "alice", "-w"), input: [], standardOutput: -1)
        #expect(result.status != 0)
        #expect(result.errors.contains("standard output"), "\(result.errors)")
        // Nothing meant for standard output went into a file the tool opened on descriptor 1 instead.
        let again = try home.tool.run(["find-generic-password", "-a", "alice", "-w"])
        #expect(again.status == 0 && again.output == "s3cret\n", "\(again.errors)")
    }
}
