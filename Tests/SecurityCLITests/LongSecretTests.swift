import Foundation
import Testing

/// Issue 9, item 1: a secret is stored whole or refused, never cut; reading is linear in its length.
@Suite("Reliability 1: long secrets are stored whole up to the limit, and refused whole beyond it")
struct LongSecretTests {
    /// The limit the tool documents, the engine's own: 16 MiB.
    static let limit = 16 << 20
    /// `errSecParam` as an exit status (the low byte of -50).
    static let paramStatus: Int32 = 206
    static let newline = UInt8(ascii: "\n")

    /// `count` printable bytes (so `-w` prints them as they are), different at every offset that matters.
    static func printable(count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(0x21 + ($0 &* 7 &+ $0 >> 12 &+ seed) % 94) }
    }

    static func hex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0xF)])
        }
        return result
    }

    static func arguments(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

    @Test(
        "Reliability 1: a secret over 64 KiB from standard input is stored whole",
        arguments: [(64 << 10) + 1, 1 << 20, 16 << 20])
    func wholeFromStandardInput(count: Int) throws {
        let home = try TestHome()
        let secret = Self.printable(count: count)
        let added = try home.tool.run(
            bytes: Self.arguments("add-generic-password", "-a", "big", "-s", "api", "-w"),
            input: secret + [Self.newline])
        #expect(added.status == 0, "\(added.errors)")
        let found = try home.tool.run(bytes: Self.arguments("find-generic-password", "-a", "big", "-w"), input: [])
        #expect(found.status == 0, "\(found.errors)")
        #expect(found.output.count == count + 1)
        #expect(found.output == secret + [Self.newline], "the stored secret is not the one given")
    }

    @Test("Reliability 1: a secret one byte over the limit is refused, naming the limit, and nothing is stored")
    func overTheLimit() throws {
        let home = try TestHome()
        let added = try home.tool.run(
            bytes: Self.arguments("add-generic-password", "-a", "big", "-s", "api", "-w"),
            input: Self.printable(count: Self.limit + 1) + [Self.newline])
        #expect(added.status == Self.paramStatus, "\(added.errors)")
        #expect(added.errors.contains("\(Self.limit)"), "\(added.errors)")
        #expect(try home.tool.run(["find-generic-password", "-a", "big"]).status == 44)
    }

    @Test("Reliability 1: 64 MiB on standard input is refused whole (in linear time), and nothing is stored")
    func sixtyFourMebibytes() throws {
        let home = try TestHome()
        let added = try home.tool.run(
            bytes: Self.arguments("add-generic-password", "-a", "huge", "-s", "api", "-w"),
            input: Self.printable(count: 64 << 20))
        #expect(added.status == Self.paramStatus, "\(added.errors)")
        #expect(added.errors.contains("\(Self.limit)"))
        #expect(try home.tool.run(["find-generic-password", "-a", "huge"]).status == 44)
    }

    @Test("Reliability 1: an -i session stores a 16 MiB -X line whole and refuses a longer secret entirely")
    func sessionHexLines() throws {
        let home = try TestHome()
        let secret = Self.printable(count: Self.limit, seed: 3)
        let over = Self.printable(count: Self.limit + 1, seed: 5)
        var script = Array("add-generic-password -a hex -s api -X ".utf8) + Self.hex(secret) + [Self.newline]
        script += Array("add-generic-password -a over -s api -X ".utf8) + Self.hex(over) + [Self.newline]
        script += Array("add-generic-password -a next -s api -w\n".utf8) + over + [Self.newline]
        script += Array("error 0\n".utf8)
        let session = try home.tool.run(bytes: Self.arguments("-i"), input: script)
        #expect(session.output == Array("Error: 0x00000000 0 No error.\n".utf8))
        #expect(session.errors.contains("add-generic-password: returned -50"), "\(session.errors.prefix(2000))")
        #expect(!session.errors.contains("unknown command"), "the rest of a line was run as a command")
        let found = try home.tool.run(bytes: Self.arguments("find-generic-password", "-a", "hex", "-w"), input: [])
        #expect(found.output == secret + [Self.newline], "the stored secret is not the one given")
        #expect(try home.tool.run(["find-generic-password", "-a", "over"]).status == 44)
        #expect(try home.tool.run(["find-generic-password", "-a", "next"]).status == 44)
    }

    @Test("Reliability 1: an -i line longer than the line limit is refused entirely, and the session goes on")
    func sessionLineOverTheLimit() throws {
        let home = try TestHome()
        // Longer than any line a 16 MiB secret needs (its -X hex and the command around it).
        let words =
            Array("add-generic-password -a long -s api -w ".utf8) + Self.printable(count: 2 * Self.limit + 70_000)
        let script = words + Array("\nerror 0\n".utf8)
        let session = try home.tool.run(bytes: Self.arguments("-i"), input: script)
        #expect(session.output == Array("Error: 0x00000000 0 No error.\n".utf8))
        #expect(session.errors.contains("longer than the limit of 33619968 bytes"), "\(session.errors.prefix(2000))")
        #expect(!session.errors.contains("unknown command"), "the rest of a line was run as a command")
        #expect(try home.tool.run(["find-generic-password", "-a", "long"]).status == 44)
    }

    @Test("Reliability 1: the limit is in the add verbs' usage and the session's")
    func documentedLimit() throws {
        let home = try TestHome()
        for verb in ["add-generic-password", "add-internet-password"] {
            let help = try home.tool.run(["help", verb])
            #expect(help.output.contains("A password may be up to 16777216 bytes (16 MiB)"), "\(help.output)")
        }
        #expect(try home.tool.run([]).output.contains("lines up to 33619968 bytes"))
    }
}
