import Foundation
import Testing

@Suite("Arguments: verbs, options and usage")
struct ArgumentTests {
    @Test("A bare `security` prints the global usage and the verbs on standard output, with status 2")
    func bareCommand() throws {
        let home = try TestHome()
        let result = try home.tool.run([])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("Usage: security [-h] [-i] [-l] [-p prompt] [-q] [-v] [command] [opt ...]\n"))
        #expect(result.output.contains("\n    find-generic-password                Find a generic password item.\n"))
        #expect(result.errors.isEmpty)
    }

    @Test("An unknown verb is named on standard error, with status 1")
    func unknownVerb() throws {
        let result = try TestHome().tool.run(["fetch-password"])
        #expect(result.status == 1)
        #expect(result.errors == "security: unknown command \"fetch-password\"\n")
    }

    @Test("A prefix runs the first verb it begins, as on macOS")
    func prefix() throws {
        let home = try TestHome()
        #expect(try home.tool.run(["add-g", "-a", "alice", "-s", "api", "-w", "pw"]).status == 0)
        let found = try home.tool.run(["find-g", "-s", "api", "-w"])
        #expect(found.status == 0)
        #expect(found.output == "pw\n")
    }

    @Test("-h prints the verb's usage on standard error, with status 2")
    func verbHelp() throws {
        let result = try TestHome().tool.run(["find-generic-password", "-h"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(
            result.errors.hasPrefix(
                "Usage: find-generic-password [-a account] [-s service] [options...] [-g] [keychain...]\n"))
        #expect(result.errors.hasSuffix("\n        Find a generic password item.\n"))
    }

    @Test(
        "A usage error says what is wrong, then prints the usage",
        arguments: [
            (["find-generic-password", "-x"], "security: find-generic-password: unknown option -x"),
            (["find-generic-password", "-a"], "security: find-generic-password: option -a needs a value"),
            (["find-generic-password", "--jsn"], "security: find-generic-password: unknown option --jsn"),
            (
                ["add-generic-password", "-s", "api", "-w", "pw"],
                "security: add-generic-password: the account (-a) is required"
            ),
            (
                ["add-generic-password", "-a", "alice", "-w", "pw"],
                "security: add-generic-password: the service (-s) is required"
            ),
            (
                ["add-internet-password", "-a", "a", "-s", "example.com", "-r", "ftp", "-w", "pw"],
                "security: add-internet-password: -r \"ftp\": four-character types must be exactly 4 characters long (try \"ftp \" instead of \"ftp\")"
            ),
            (
                ["find-internet-password", "-P", "http"],
                "security: find-internet-password: -P \"http\": the port must be a number from 0 to 65535"
            ),
            (
                ["add-generic-password", "-a", "a", "-s", "s", "-X", "0xZZ"],
                "security: add-generic-password: -X must specify valid hex digits"
            ),
            (
                ["delete-generic-password"],
                "security: delete-generic-password: say which item to delete: give at least one attribute to match"
            ),
            (
                ["unlock-keychain", "one", "two"],
                "security: unlock-keychain: one keychain at most, but 2 were given: one two"
            ),
            (["error", "0xZZ"], "security: error: \"0xZZ\" is not an error code (decimal, 0x hex or 0 octal)"),
        ])
    func usageErrors(arguments: [String], problem: String) throws {
        let result = try TestHome().tool.run(arguments)
        #expect(result.status == 2)
        let lines = result.errors.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == problem)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: \(arguments[0]) ") == true)
    }

    @Test("Options may be bundled, may follow the keychain, and -- ends them")
    func optionPlacement() throws {
        let home = try TestHome()
        let keychain = home.keychain("ci")
        #expect(try home.tool.run(["create-keychain", "-p", "", keychain]).status == 0)
        #expect(
            try home.tool.run(["add-generic-password", keychain, "-a", "-dash", "-s", "api", "-w", "pw"]).status == 0)
        let bundled = try home.tool.run(["find-generic-password", "-ga", "-dash", keychain])
        #expect(bundled.status == 0)
        #expect(bundled.errors == "password: \"pw\"\n")
        let ended = try home.tool.run(["find-generic-password", "-s", "api", "-w", "--", keychain])
        #expect(ended.output == "pw\n")
    }

    @Test("help lists every verb, or prints the usage of those named")
    func help() throws {
        let home = try TestHome()
        let list = try home.tool.run(["help"])
        #expect(list.status == 0)
        for verb in [
            "create-keychain", "delete-keychain", "lock-keychain", "unlock-keychain", "set-keychain-password",
            "show-keychain-info", "dump-keychain", "add-generic-password", "add-internet-password",
            "find-generic-password", "find-internet-password", "delete-generic-password", "delete-internet-password",
            "error",
        ] {
            #expect(list.output.contains("\n    \(verb) "), "\(verb) is not listed")
        }
        let one = try home.tool.run(["help", "delete-keychain"])
        #expect(one.output == "Usage: delete-keychain [keychains...]\n")
        let missing = try home.tool.run(["help", "frobnicate"])
        #expect(missing.status == 1)
        #expect(missing.errors == "security: help: no such command: frobnicate\n")
    }
}
