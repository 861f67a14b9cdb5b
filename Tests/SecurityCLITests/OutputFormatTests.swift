import Foundation
import Testing

@Suite("Output: macOS's attribute blocks, passwords and JSON")
struct OutputFormatTests {
    @Test("find-generic-password prints the item as macOS's tool does, attributes in tag order")
    func genericBlock() throws {
        let home = try TestHome()
        let tool = home.tool
        let added = try tool.run([
            "add-generic-password", "-a", "alice", "-s", "api.example.com", "-l", "API", "-D", "token", "-j",
            "rotated weekly", "-G", "v2", "-c", "aapl", "-w", "s3cret",
        ])
        #expect(added.status == 0)
        #expect(added.output.isEmpty && added.errors.isEmpty)
        let found = try tool.run(["find-generic-password", "-a", "alice", "-s", "api.example.com"])
        #expect(found.status == 0)
        #expect(found.errors.isEmpty)
        let lines = found.output.split(separator: "\n").map(String.init)
        let date = try #require(lines.first { $0.hasPrefix("    \"cdat\"") })
        let datePattern = try Regex(#"    "cdat"<timedate>=0x[0-9A-F]{28}5A00  "\d{14}Z\\000""#)
        #expect(date.wholeMatch(of: datePattern) != nil, "\(date)")
        let expected = [
            "keychain: \"\(home.defaultKeychain.path)\"",
            "class: \"genp\"",
            "attributes:",
            "    0x00000007 <blob>=\"API\"",
            "    0x00000008 <blob>=<NULL>",
            "    \"acct\"<blob>=\"alice\"",
            "    \"agrp\"<blob>=\"security\"",
            date,
            "    \"crtr\"<uint32>=\"aapl\"",
            "    \"cusi\"<sint32>=<NULL>",
            "    \"desc\"<blob>=\"token\"",
            "    \"gena\"<blob>=\"v2\"",
            "    \"icmt\"<blob>=\"rotated weekly\"",
            "    \"invi\"<sint32>=<NULL>",
            date.replacingOccurrences(of: "cdat", with: "mdat"),
            "    \"nega\"<sint32>=<NULL>",
            "    \"pdmn\"<blob>=\"ak\"",
            "    \"prot\"<blob>=<NULL>",
            "    \"scrp\"<sint32>=<NULL>",
            "    \"svce\"<blob>=\"api.example.com\"",
            "    \"sync\"<sint32>=<NULL>",
            "    \"type\"<uint32>=<NULL>",
        ]
        #expect(lines == expected)
    }

    @Test("find-internet-password prints port and protocol as uint32, with 0 for none, as macOS does")
    func internetBlock() throws {
        let home = try TestHome()
        let tool = home.tool
        #expect(
            try tool.run([
                "add-internet-password", "-a", "bob", "-s", "git.example.com", "-r", "htps", "-P", "443", "-p", "/repo",
                "-t", "form", "-d", "realm", "-w", "pw",
            ]).status == 0)
        #expect(
            try tool.run(["add-internet-password", "-a", "carol", "-s", "ftp.example.com", "-w", "pw"]).status == 0)
        let full = try tool.run(["find-internet-password", "-s", "git.example.com"]).output
        for line in [
            "class: \"inet\"", "    \"atyp\"<blob>=\"form\"", "    \"path\"<blob>=\"/repo\"",
            "    \"port\"<uint32>=0x000001BB ", "    \"ptcl\"<uint32>=\"htps\"", "    \"sdmn\"<blob>=\"realm\"",
            "    \"srvr\"<blob>=\"git.example.com\"", "    0x00000007 <blob>=\"git.example.com\"",
        ] {
            #expect(full.contains(line + "\n"), "missing \(line)")
        }
        let bare = try tool.run(["find-internet-password", "-a", "carol"]).output
        for line in [
            "    \"atyp\"<blob>=<NULL>", "    \"port\"<uint32>=0x00000000 ", "    \"ptcl\"<uint32>=0x00000000 ",
        ] {
            #expect(bare.contains(line + "\n"), "missing \(line)")
        }
        let matched = try tool.run(["find-internet-password", "-s", "git.example.com", "-P", "443", "-r", "htps", "-w"])
        #expect(matched.output == "pw\n")
        let wrongPort = try tool.run(["find-internet-password", "-s", "git.example.com", "-P", "8443"])
        #expect(wrongPort.status == 44)
    }

    @Test("-g puts the password on standard error, -w alone on standard output; binary data prints as hex")
    func passwords() throws {
        let home = try TestHome()
        let tool = home.tool
        #expect(try tool.run(["add-generic-password", "-a", "text", "-s", "api", "-w", "a \"b\" \\c"]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "binary", "-s", "api", "-X", "DEADBEEF"]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "mixed", "-s", "api", "-X", "6361666500"]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "empty", "-s", "api"]).status == 0)

        let text = try tool.run(["find-generic-password", "-a", "text", "-g"])
        #expect(text.output.hasPrefix("keychain: "))
        #expect(text.errors == "password: 0x6120226222205C63  \"a \"b\" \\134c\"\n")
        #expect(try tool.run(["find-generic-password", "-a", "text", "-w"]).output == "a \"b\" \\c\n")

        let binary = try tool.run(["find-generic-password", "-a", "binary", "-g"])
        #expect(binary.errors == "password: 0xDEADBEEF \n")
        let onlyBinary = try tool.run(["find-generic-password", "-a", "binary", "-w"])
        #expect(onlyBinary.output == "deadbeef\n")
        #expect(onlyBinary.errors.isEmpty)

        #expect(
            try tool.run(["find-generic-password", "-a", "mixed", "-g"]).errors
                == "password: 0x6361666500  \"cafe\\000\"\n")
        #expect(try tool.run(["find-generic-password", "-a", "mixed", "-w"]).output == "6361666500\n")
        #expect(try tool.run(["find-generic-password", "-a", "empty", "-g"]).errors == "password: \n")
        #expect(try tool.run(["find-generic-password", "-a", "empty", "-w"]).output == "\n")
    }

    @Test("--json prints one JSON document: the item, the password alone, a dump, the keychain's state")
    func json() throws {
        let home = try TestHome()
        let tool = home.tool
        #expect(
            try tool.run(["add-generic-password", "-a", "alice", "-s", "api", "-G", "v2", "-w", "s3cret"]).status == 0)
        #expect(
            try tool.run(["add-internet-password", "-a", "bob", "-s", "example.com", "-P", "8080", "-X", "FF00"]).status
                == 0)

        let item = try object(tool.run(["find-generic-password", "-s", "api", "-g", "--json"]).output)
        #expect(item["class"] as? String == "genp")
        #expect(item["keychain"] as? String == home.defaultKeychain.path)
        #expect(item["password"] as? String == "s3cret")
        let attributes = try #require(item["attributes"] as? [String: Any])
        #expect(attributes["acct"] as? String == "alice")
        #expect(attributes["svce"] as? String == "api")
        #expect(attributes["labl"] as? String == "api")
        #expect(attributes["gena"] as? String == Data("v2".utf8).base64EncodedString())
        #expect(attributes["agrp"] as? String == "security")
        #expect(attributes["pdmn"] as? String == "ak")
        #expect(attributes["sync"] as? Bool == false)
        #expect((attributes["cdat"] as? String)?.hasSuffix("Z") == true)

        let withoutPassword = try object(tool.run(["find-generic-password", "-s", "api", "--json"]).output)
        #expect(withoutPassword["password"] == nil)
        #expect(
            try object(tool.run(["find-generic-password", "-s", "api", "-w", "--json"]).output).keys.sorted() == [
                "password"
            ])
        let binary = try object(tool.run(["find-internet-password", "-a", "bob", "-w", "--json"]).output)
        #expect(binary["passwordBase64"] as? String == Data([0xFF, 0]).base64EncodedString())

        let dump = try #require(
            JSONSerialization.jsonObject(with: Data(try tool.run(["dump-keychain", "-d", "--json"]).output.utf8))
                as? [[String: Any]])
        #expect(dump.map { $0["class"] as? String } == ["genp", "inet"])
        #expect(dump.first?["password"] as? String == "s3cret")
        #expect(((dump.last?["attributes"] as? [String: Any])?["port"] as? Int) == 8080)

        let info = try object(tool.run(["show-keychain-info", "--json"]).output)
        #expect(info["hasPasscode"] as? Bool == false)
        #expect(info["isLocked"] as? Bool == false)
        #expect(info["keychain"] as? String == home.defaultKeychain.path)

        let deleted = try tool.run(["delete-generic-password", "-a", "alice", "--json"])
        #expect(try object(deleted.output)["class"] as? String == "genp")
        #expect(deleted.errors == "password has been deleted.\n")
    }

    @Test("dump-keychain prints every item of every access group, back to back, with data after -d")
    func dump() throws {
        let home = try TestHome()
        let tool = home.tool
        #expect(try tool.run(["add-generic-password", "-a", "b", "-s", "svc", "-w", "two"]).status == 0)
        #expect(
            try tool.run(["add-generic-password", "-a", "a", "-s", "svc", "--access-group", "other", "-w", "one"])
                .status == 0)
        let attributesOnly = try tool.run(["dump-keychain"])
        #expect(attributesOnly.status == 0)
        #expect(attributesOnly.output.components(separatedBy: "keychain: ").count == 3)
        #expect(!attributesOnly.output.contains("data:"))
        let withData = try tool.run(["dump-keychain", "-d"]).output
        #expect(withData.contains("\"agrp\"<blob>=\"other\"\n"))
        #expect(withData.contains("data:\n\"one\"\n"))
        #expect(withData.contains("data:\n\"two\"\n"))
        let first = try #require(withData.range(of: "\"acct\"<blob>=\"a\""))
        let second = try #require(withData.range(of: "\"acct\"<blob>=\"b\""))
        #expect(first.lowerBound < second.lowerBound)
    }

    private func object(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}
