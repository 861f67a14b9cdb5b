import Foundation
import Testing

@Suite("add-…-password -U: one add-or-update, writing only the attributes given, as macOS does")
struct UpdateOptionTests {
    @Test("-U adds a missing item, then writes the password and the options given over it, keeping the others")
    func addOrUpdate() throws {
        let home = try TestHome()
        let tool = home.tool
        let add = ["add-generic-password", "-U", "-a", "alice", "-s", "api"]
        #expect(try tool.run(add + ["-j", "rotated weekly", "-D", "token", "-w", "one"]).status == 0)
        let first = try tool.run(["find-generic-password", "-a", "alice"]).output
        #expect(first.contains("\"icmt\"<blob>=\"rotated weekly\""))

        #expect(try tool.run(add + ["-w", "two"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "two\n")
        let second = try tool.run(["find-generic-password", "-a", "alice"]).output
        // The comment and kind it did not name stay; the creation date is the first add's.
        #expect(second.contains("\"icmt\"<blob>=\"rotated weekly\"") && second.contains("\"desc\"<blob>=\"token\""))
        func creationDate(_ output: String) -> Substring? {
            output.split(separator: "\n").first { $0.hasPrefix("    \"cdat\"") }
        }
        #expect(creationDate(second) != nil && creationDate(second) == creationDate(first))

        #expect(try tool.run(add + ["-j", "monthly", "-w", "three"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "alice"]).output.contains("\"icmt\"<blob>=\"monthly\""))
        let all = try tool.run(["dump-keychain"]).output
        #expect(all.components(separatedBy: "\"acct\"<blob>=\"alice\"").count == 2)
    }
}
