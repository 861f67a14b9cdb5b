import Foundation
import Testing

@Suite("security -i: one process, commands from standard input")
struct InteractiveSessionTests {
    @Test("An unlocked keychain stays unlocked for the session, secrets come from the following lines")
    func session() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("kc", passcode: "p4ss", passwords: [("alice", "api", "s3cret")])
        let script = """
            unlock-keychain \(path)
            p4ss
            find-generic-password -a alice -w \(path)
            add-generic-password -a "bob smith" -s 'my api' \(path) -w
            bob's secret
            find-generic-password -a bob\\ smith -w \(path)
            lock-keychain \(path)
            find-generic-password -a alice -w \(path)
            find-generic-password -a nobody \(path)

            """
        let result = try home.tool.run(["-i"], input: script)
        #expect(result.output == "s3cret\nbob's secret\n")
        #expect(result.errors.contains("find-generic-password: returned -25308\n"))
        #expect(result.errors.hasSuffix("find-generic-password: returned -25300\n"))
        #expect(result.status == 44)
    }

    @Test("-q drops the `returned` lines, and exit or quit ends the session")
    func quietAndExit() throws {
        let home = try TestHome()
        let result = try home.tool.run(
            ["-q", "-i"], input: "find-generic-password -a nobody\nquit\nerror 0\n")
        #expect(result.status == 44)
        #expect(result.output.isEmpty)
        #expect(
            result.errors
                == "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
    }

    @Test("An unfinished quote is reported, and the session goes on")
    func unfinishedQuote() throws {
        let result = try TestHome().tool.run(["-i"], input: "find-generic-password -a \"alice\nerror 0\n")
        #expect(result.errors.contains("security: the line ends inside \"quotes\"\n"))
        #expect(result.output == "Error: 0x00000000 0 No error.\n")
        #expect(result.status == 1)
    }
}
