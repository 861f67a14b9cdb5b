import Foundation
import Testing

@Suite("verify-keychain: damage, rollback and missing items, by persistent reference")
struct VerifyKeychainTests {
    @Test("Reliability 4: verify-keychain passes a sound keychain, and a rolled-back one fails with errSecDecode")
    func verifyReportsRollback() throws {
        let home = try TestHome()
        let path = home.keychain("team")
        let tool = home.tool
        #expect(try tool.run(["create-keychain", "-p", "", path]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "one", path]).status == 0)
        #expect(try tool.run(["add-generic-password", "-a", "b", "-s", "s", "-w", "bee", path]).status == 0)
        let sound = try tool.run(["verify-keychain", path])
        #expect(sound.status == 0, "\(sound.errors)")
        #expect(sound.output == "2 items checked, 0 damaged, 0 keychain problems\n")

        // An older copy of the database put back (each `security` process checkpoints its WAL when it exits).
        let database = URL(fileURLWithPath: path).appendingPathComponent("keychain.db")
        let older = try Data(contentsOf: database)
        #expect(try tool.run(["add-generic-password", "-U", "-a", "a", "-s", "s", "-w", "two", path]).status == 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        try older.write(to: database)

        let stale = try tool.run(["find-generic-password", "-a", "a", "-s", "s", "-w", path])
        #expect(stale.status == 93, "the stale secret is not served: \(stale.output)")
        #expect(stale.output.isEmpty)
        let verified = try tool.run(["verify-keychain", path])
        #expect(verified.status == 93)
        #expect(verified.output.contains("problem: the keychain database is older than its last acknowledged change"))
        let json = try tool.run(["verify-keychain", "--json", path])
        #expect(json.status == 93)
        #expect(json.output.contains("\"sound\":false"))
    }
}
