import Foundation
import Keychain
import Testing

/// Issue 9, item 5: names are text, secrets are bytes. An argument or session line that is not UTF-8 is refused,
/// never repaired into another name; a secret read from standard input is stored byte for byte.
@Suite("Reliability 5: invalid UTF-8 is refused, never mapped onto another name")
struct ArgumentEncodingTests {
    static func arguments(_ words: [UInt8]...) -> [[UInt8]] { words }

    @Test("Reliability 5: two account names that are not UTF-8 are refused, naming the argument, not made one item")
    func invalidArgument() throws {
        let home = try TestHome()
        for (name, secret) in [([UInt8(0xFF)] + Array("alice".utf8), "one"), ([0xFE] + Array("alice".utf8), "two")] {
            let added = try home.tool.run(
                bytes: [
                    Array("add-generic-password".utf8), Array("-a".utf8), name, Array("-s".utf8), Array("api".utf8),
                    Array("-w".utf8), Array(secret.utf8),
                ], input: [])
            #expect(added.status == 2, "\(added.errors)")
            #expect(added.errors.contains("-a"), "\(added.errors)")
            #expect(added.errors.contains("not valid UTF-8"), "\(added.errors)")
            #expect(added.errors.contains("\\377alice") || added.errors.contains("\\376alice"), "\(added.errors)")
        }
        #expect(try home.tool.run(["find-generic-password", "-a", "\u{FFFD}alice"]).status == 44)
        #expect(try home.tool.run(["dump-keychain"]).output.isEmpty)
        let found = try home.tool.run(
            bytes: [
                Array("find-generic-password".utf8), Array("-a".utf8), [0xFE] + Array("alice".utf8), Array("-w".utf8),
            ],
            input: [])
        #expect(found.status == 2 && found.output.isEmpty)
    }

    @Test("Reliability 5: an -i line that is not UTF-8 is refused, and the session goes on")
    func invalidSessionLine() throws {
        let home = try TestHome()
        let script =
            Array("add-generic-password -a ".utf8) + [0xFF] + Array("x -s api -w one\nerror 0\n".utf8)
        let session = try home.tool.run(bytes: [Array("-i".utf8)], input: script)
        #expect(session.errors.contains("not valid UTF-8"), "\(session.errors)")
        #expect(session.output == Array("Error: 0x00000000 0 No error.\n".utf8))
        #expect(try home.tool.run(["dump-keychain"]).output.isEmpty)
    }

    @Test("Reliability 5: a secret from standard input is bytes, stored as they are, UTF-8 or not")
    func binarySecret() throws {
        let home = try TestHome()
        let added = try home.tool.run(
            bytes: [
                Array("add-generic-password".utf8), Array("-a".utf8), Array("bin".utf8), Array("-s".utf8),
                Array("api".utf8), Array("-w".utf8),
            ],
            input: [0x66, 0xFF, 0xFE, 0x00, 0x80, 0x0A])
        #expect(added.status == 0, "\(added.errors)")
        #expect(try home.tool.run(["find-generic-password", "-a", "bin", "-w"]).output == "66fffe0080\n")
    }

    @Test("Reliability 5: a passcode that is not UTF-8 is refused, not repaired into another passcode")
    func invalidPasscode() throws {
        let home = try TestHome()
        let path = home.keychain("kc")
        let created = try home.tool.run(
            bytes: [Array("create-keychain".utf8), Array(path.utf8)], input: Array("pass".utf8) + [0xFF, 0x0A])
        #expect(created.status != 0)
        #expect(created.errors.contains("not valid UTF-8"), "\(created.errors)")
        #expect(!Keychain.exists(in: URL(fileURLWithPath: path)), "a keychain was created")
    }
}
