import Foundation
import Testing

/// Issue 9, item 9 (the CLI's part): an option that takes one value, given twice, is a usage error; so are two
/// options that both give the password, and an empty access group.
@Suite("Reliability 9: repeated and conflicting options are usage errors naming them")
struct RepeatedOptionTests {
    @Test(
        "Reliability 9: a repeated one-value option, or -X with -w, is refused and nothing is stored",
        arguments: [
            (["-w", "one", "-w", "two"], "-w"), (["-X", "6f6e65", "-w", "two"], "-X"),
            (["-p", "one", "-w", "two"], "-p"),
            (["-wone", "-X", "74776f"], "-X"), (["-a", "bob", "-w", "one"], "-a"), (["-s", "web", "-w", "one"], "-s"),
            (["-l", "one", "-l", "two", "-w", "x"], "-l"),
            (["--access-group", "a", "--access-group", "b", "-w", "x"], "--access-group"),
            (["--accessibility", "ak", "--accessibility=ck", "-w", "x"], "--accessibility"),
        ])
    func repeatedOnAdd(extra: [String], named option: String) throws {
        let home = try TestHome()
        let result = try home.tool.run(["add-generic-password", "-a", "alice", "-s", "api"] + extra)
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains(option), "\(result.errors)")
        #expect(try home.tool.run(["dump-keychain"]).output.isEmpty)
    }

    @Test("Reliability 9: an empty --access-group is refused when adding and when searching")
    func emptyAccessGroup() throws {
        let home = try TestHome()
        let added = try home.tool.run([
            "add-generic-password", "-a", "alice", "-s", "api", "-w", "x", "--access-group", "",
        ])
        #expect(added.status == 2, "\(added.errors)")
        #expect(added.errors.contains("--access-group"))
        #expect(try home.tool.run(["dump-keychain"]).output.isEmpty)
        let found = try home.tool.run(["find-generic-password", "-a", "alice", "--access-group="])
        #expect(found.status == 2, "\(found.errors)")
        #expect(found.errors.contains("--access-group"))
    }

    @Test("Reliability 9: repeated search options, -k and the global -p are refused; -T, which macOS repeats, is not")
    func otherVerbs() throws {
        let home = try TestHome()
        for arguments in [
            ["find-generic-password", "-a", "alice", "-a", "bob"], ["delete-internet-password", "-s", "a", "-s", "b"],
            ["find-internet-password", "-P", "1", "-P", "2"], ["unprotect-file", "-k", "a", "-k", "b", "in", "out"],
            ["unlock-keychain", "-p", "a", "-p", "b"], ["-p", "a> ", "-p", "b> "],
            ["create-keychain", "-p", "a", "-p", "b", home.keychain("kc")],
        ] {
            let result = try home.tool.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.contains("given twice"), "\(arguments): \(result.errors)")
        }
        let trusted = try home.tool.run([
            "add-generic-password", "-a", "alice", "-s", "api", "-w", "x", "-T", "/usr/bin/a", "-T", "/usr/bin/b",
        ])
        #expect(trusted.status == 0, "\(trusted.errors)")
    }

    @Test("Reliability 9: an internet password's -p is its path, neither a second password nor the password")
    func internetPath() throws {
        let home = try TestHome()
        let added = try home.tool.run(
            ["add-internet-password", "-a", "bob", "-s", "git.example.com", "-p", "/repo", "-w"], input: "typed\n")
        #expect(added.status == 0, "\(added.errors)")
        #expect(try home.tool.run(["find-internet-password", "-a", "bob", "-w"]).output == "typed\n")
        #expect(try home.tool.run(["add-internet-password", "-a", "eve", "-s", "x.example", "-p", "/p"]).status == 0)
        #expect(try home.tool.run(["find-internet-password", "-a", "eve", "-w"]).output == "\n")
    }
}
