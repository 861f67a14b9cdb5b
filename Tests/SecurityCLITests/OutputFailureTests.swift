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
