import Foundation
import Testing

@Suite("Secrets: never from argv — prompts on the terminal without echo, or standard input")
struct SecretInputTests {
    @Test("A trailing -w reads the password from standard input when it is not a terminal")
    func passwordFromStandardInput() throws {
        let home = try TestHome()
        let added = try home.tool.run(
            ["add-generic-password", "-a", "alice", "-s", "api", "-w"], input: "from stdin\nnext\n")
        #expect(added.status == 0)
        #expect(added.output.isEmpty && added.errors.isEmpty)
        #expect(try home.tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "from stdin\n")
        let nothing = try home.tool.run(["add-generic-password", "-a", "bob", "-s", "api", "-w"])
        #expect(nothing.status == 1)
        #expect(nothing.errors.contains("standard input ended"))
        #expect(try home.tool.run(["find-generic-password", "-a", "bob"]).status == 44)
    }

    @Test("On a terminal, a trailing -w asks twice without echo, and asks again when the two differ")
    func passwordPrompt() throws {
        let home = try TestHome()
        let session = try TerminalSession(
            ["add-generic-password", "-a", "alice", "-s", "api", "-w"], process: home.tool)
        try session.waitFor("password data for new item: ")
        session.type("typo-secret")
        try session.waitFor("retype password for new item: ")
        session.type("other-secret")
        try session.waitFor("password data for new item: ")
        session.type("tty-secret")
        try session.waitFor("retype password for new item: ")
        session.type("tty-secret")
        let result = try session.finish()
        #expect(result.status == 0)
        #expect(result.errors == "passwords don't match\n")
        #expect(!session.screen.contains("secret"), "echoed: \(session.screen)")
        #expect(try home.tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "tty-secret\n")
    }

    @Test("A locked keychain asks for its passcode on the terminal, then answers")
    func passcodePromptWhenLocked() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("kc", passcode: "open sesame", passwords: [("alice", "api", "s3cret")])
        let session = try TerminalSession(["find-generic-password", "-a", "alice", "-w", path], process: home.tool)
        try session.waitFor("password to unlock \(path): ")
        session.type("open sesame")
        let result = try session.finish()
        #expect(result.status == 0)
        #expect(result.output == "s3cret\n")
        #expect(!session.screen.contains("sesame"))
    }

    @Test("A wrong passcode at the prompt is 51, and nothing is printed")
    func wrongPasscodeAtPrompt() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("kc", passcode: "open sesame", passwords: [("alice", "api", "s3cret")])
        let session = try TerminalSession(["find-generic-password", "-a", "alice", "-g", path], process: home.tool)
        try session.waitFor("password to unlock \(path): ")
        session.type("close sesame")
        let result = try session.finish()
        #expect(result.status == 51)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("The user name or passphrase you entered is not correct."))
    }

    @Test("unlock-keychain asks on the terminal with macOS's prompt: the name as typed")
    func unlockPrompt() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("kc", passcode: "1234")
        let session = try TerminalSession(["unlock-keychain", path], process: home.tool)
        try session.waitFor("password to unlock \(path): ")
        session.type("1234")
        #expect(try session.finish().status == 0)
    }

    @Test("Control-C at a prompt ends the tool and gives the terminal its echo back")
    func interruptedPrompt() throws {
        let home = try TestHome()
        let path = try home.makeLockedKeychain("kc", passcode: "1234")
        let session = try TerminalSession(["unlock-keychain", path], process: home.tool)
        #expect(session.echoedBeforeStart)
        try session.waitFor("password to unlock \(path): ")
        #expect(!session.echoes)
        session.interrupt()
        #expect(try session.signalThatEnded() == SIGINT)
        #expect(session.echoes)
    }

    @Test("-v echoes a command with its secrets replaced")
    func verboseHidesSecrets() throws {
        let result = try TestHome().tool.run([
            "-v", "add-generic-password", "-a", "alice", "-s", "api", "-wsupersecret",
        ])
        #expect(result.status == 0)
        #expect(result.errors == "add-generic-password \"-a\" \"alice\" \"-s\" \"api\" \"-w<secret>\"\n")
    }
}
