import Foundation
import Testing

/// Issue 20, item 8: damage never crashes the tool. Every byte of the database file's header (SQLite's first 100
/// bytes: page size, versions, counters, the schema cookie, the text encoding, our schema version in `user_version`
/// at offset 60…) is flipped in turn and `security dump-keychain` runs on the result in a process of its own, so a
/// Swift trap shows as a death by signal, not as the test's own.
@Suite("Header damage: every flipped byte of the database header is an error or harmless, never a crash")
struct HeaderDamageTests {
    @Test("Every byte of keychain.db's header flipped: dump-keychain never dies; user_version's flip is errSecDecode")
    func headerSweep() throws {
        let home = try TestHome()
        let path = home.keychain("damaged")
        let tool = home.tool
        #expect(try tool.run(["create-keychain", "-p", "", path]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "one", path]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "b", "-s", "s", "-w", "two", path]).status == 0)
        let database = URL(fileURLWithPath: path).appendingPathComponent("keychain.db")
        // Each process checkpoints its WAL when it exits: the header is in the file.
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: database.path + "-wal"))) ?? Data()
        try #require(wal.isEmpty, "the WAL still holds \(wal.count) bytes")
        let pristine = try Data(contentsOf: database)
        var outcomes: [String: Int] = [:]
        for offset in 0..<100 {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
            var damaged = pristine
            damaged[offset] ^= 0xFF
            try damaged.write(to: database)
            let result: SecurityProcess.Result
            do {
                result = try tool.run(["dump-keychain", path])
            } catch {
                Issue.record("byte \(offset): dump-keychain did not exit: \(error)")
                continue
            }
            outcomes[result.status == 0 ? "harmless" : "status \(result.status)", default: 0] += 1
            if result.status != 0 {
                #expect(result.errors.hasPrefix("security: "), "byte \(offset): \(result.errors)")
            }
            if (60..<64).contains(offset) {
                #expect(result.status == 93, "byte \(offset) (user_version): \(result.status) \(result.errors)")
                #expect(result.errors.contains("schema version"), "byte \(offset): \(result.errors)")
            }
        }
        try pristine.write(to: database)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        #expect(try tool.run(["find-generic-password", "-a", "a", "-s", "s", "-w", path]).output == "one\n")
        print("header sweep: \(outcomes.sorted { $0.key < $1.key })")
    }
}
