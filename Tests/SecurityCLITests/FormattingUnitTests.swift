import Foundation
import Testing

@testable import security_tool

@Suite("Formatting and parsing pieces")
struct FormattingUnitTests {
    @Test(
        "print_buffer's four cases",
        arguments: [
            ([UInt8]("alice".utf8), "\"alice\""),
            ([0xDE, 0xAD], "0xDEAD "),
            ([UInt8]("café".utf8), "0x636166C3A9  \"caf\\303\\251\""),
            ([UInt8]("a\\b".utf8), "0x615C62  \"a\\134b\""),
            ([], ""),
        ])
    func printBuffer(bytes: [UInt8], printed: String) {
        #expect(PrintBuffer.format(bytes) == printed)
    }

    @Test("Session lines split on whitespace, with quotes and backslashes")
    func lineSplitting() throws {
        #expect(try LineSplitter.split("  a \"b c\" 'd \"e\"' f\\ g \"\"  ") == ["a", "b c", "d \"e\"", "f g", ""])
        #expect(throws: LineSplitter.UnfinishedLine.self) { try LineSplitter.split("a 'b") }
        #expect(throws: LineSplitter.UnfinishedLine.self) { try LineSplitter.split("a \\") }
    }

    @Test("Session lines split by bytes keep Unicode: its whitespace separates, its characters stay whole")
    func lineSplittingUnicode() throws {
        #expect(try LineSplitter.split("café\u{00A0}naïve\u{3000}x\r\n") == ["café", "naïve", "x"])
        #expect(try LineSplitter.split("\\é \"ü ö\" '日本 語' \\\u{00A0}b") == ["é", "ü ö", "日本 語", "\u{00A0}b"])
        #expect(try LineSplitter.split("e\u{301}\te\u{301}") == ["e\u{301}", "e\u{301}"])
        #expect(try LineSplitter.split("-X " + String(repeating: "ab", count: 100_000)).last?.count == 200_000)
    }

    @Test("Error codes read as strtoul reads them, wrapped to 32 bits")
    func errorCodes() {
        #expect(ErrorCode.parse("-25300") == -25300)
        #expect(ErrorCode.parse("0xFFFF9D2C") == -25300)
        #expect(ErrorCode.parse("010") == 8)
        #expect(ErrorCode.parse("0x") == nil)
        #expect(ErrorCode.parse("0x100000000") == nil)
        #expect(ErrorCode.parse("twelve") == nil)
    }

    @Test("A -w given last asks; given a value, it is that value even when the value begins with a dash")
    func promptedOptions() throws {
        let specification = OptionSpecification("a:w?U")
        let prompted = try ParsedArguments(["-a", "x", "kc", "-w"], specification: specification)
        #expect(prompted.prompted == ["w"])
        #expect(prompted.positionals == ["kc"])
        let given = try ParsedArguments(["-w", "-U", "-U"], specification: specification)
        #expect(given.value("w") == "-U")
        #expect(given.has("U"))
        #expect(given.prompted.isEmpty)
    }

    @Test("JSON text escapes what it must and sorts keys")
    func jsonText() {
        let value = JSONValue.object(["b": .array([.number(-1), .bool(true)]), "a": .string("q\"\\\n\u{1}é")])
        #expect(value.text == "{\"a\":\"q\\\"\\\\\\n\\u0001é\",\"b\":[-1,true]}")
    }
}
