import Foundation
import TestSupport
import Testing

@testable import KeychainCore

@Suite("Reliability: a damaged keybag")
struct KeybagDamageTests {
    /// A keychain with items, closed, with everything checkpointed into keychain.db.
    private func closedKeychain() throws -> (TemporaryDirectory, TestClock) {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        let engine = try TestKeychain.open(directory, clock)
        try engine.addPassword("a", "first")
        try engine.addPassword("b", "second", [.accessible: .string("dk")])
        try engine.checkpoint()
        return (directory, clock)
    }

    /// The bytes of the files that hold the keychain (SQLite's -shm is only an index rebuilt by readers).
    private func snapshot(_ directory: TemporaryDirectory) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in ["keychain.db", "keychain.db-wal", "device.key"] {
            files[name] = FileManager.default.contents(atPath: directory.keychain.appendingPathComponent(name).path)
        }
        return files
    }

    /// Opens the keychain, expecting it to be refused as invalid with nothing written.
    private func expectRefusedUnchanged(
        _ directory: TemporaryDirectory, _ clock: TestClock, mentioning words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = snapshot(directory)
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.keychain.path).sorted()
        do {
            _ = try TestKeychain.open(directory, clock)
            Issue.record("a damaged keychain was opened", sourceLocation: sourceLocation)
        } catch let error as EngineError {
            #expect(error.code == .invalidKeychain, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(words), "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains("nothing was changed"), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(snapshot(directory) == before, "the failed open wrote to the keychain", sourceLocation: sourceLocation)
        let after = try FileManager.default.contentsOfDirectory(atPath: directory.keychain.path).sorted()
        #expect(after.filter { $0 != "keychain.db-shm" } == entries.filter { $0 != "keychain.db-shm" })
    }

    /// Edits keychain.db's bytes in place: `page` is 1-based, `offset` within the page.
    private func patch(_ directory: TemporaryDirectory, page: Int, offset: Int, bytes: [UInt8]) throws {
        let url = directory.keychain.appendingPathComponent("keychain.db")
        var contents = try Data(contentsOf: url)
        let start = (page - 1) * 4096 + offset
        contents.replaceSubrange(start..<start + bytes.count, with: bytes)
        try contents.write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    private func rootPage(_ directory: TemporaryDirectory, of table: String) throws -> Int {
        let database = try Database(path: KeychainDirectory(url: directory.keychain).databasePath)
        let page = try database.first("SELECT rootpage FROM sqlite_master WHERE name = ?", [.text(table)]) {
            Int($0.integer(0))
        }
        return try #require(page)
    }

    @Test("Reliability 2: a missing keybag row is invalidKeychain and nothing is written")
    func missingKeybagRow() throws {
        let (directory, clock) = try closedKeychain()
        do {
            let database = try Database(path: KeychainDirectory(url: directory.keychain).databasePath)
            try database.run("DELETE FROM keybag")
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try expectRefusedUnchanged(directory, clock, mentioning: "no readable keybag")
        // The class keys are still there for a restore of the keybag row.
        let database = try Database(path: KeychainDirectory(url: directory.keychain).databasePath)
        #expect(try database.first("SELECT count(*) FROM class_keys WHERE name != 'attempts'") { $0.integer(0) } == 8)
    }

    @Test("Reliability 2: a damaged keybag row is invalidKeychain and nothing is written")
    func damagedKeybagPage() throws {
        let (directory, clock) = try closedKeychain()
        let page = try rootPage(directory, of: "keybag")
        // One damaged byte: the page's cell count (bytes 3-4 of its header) reads 0, so the row vanishes.
        try patch(directory, page: page, offset: page == 1 ? 103 : 3, bytes: [0, 0])
        try expectRefusedUnchanged(directory, clock, mentioning: "no readable keybag")
    }

    @Test("Reliability 2: keybag pages SQLite reports as corrupt are invalidKeychain, clearly, and nothing is written")
    func corruptKeybagPages() throws {
        for table in ["keybag", "class_keys"] {
            let (directory, clock) = try closedKeychain()
            let page = try rootPage(directory, of: table)
            // The page-type byte: no valid b-tree page starts with 0x55.
            try patch(directory, page: page, offset: page == 1 ? 100 : 0, bytes: [0x55])
            try expectRefusedUnchanged(directory, clock, mentioning: "keybag cannot be read")
        }
    }

    @Test("Reliability 2: a keychain whose device key is missing is invalidKeychain and no new device key is written")
    func missingDeviceKey() throws {
        let (directory, clock) = try closedKeychain()
        try FileManager.default.removeItem(at: directory.keychain.appendingPathComponent("device.key"))
        try expectRefusedUnchanged(directory, clock, mentioning: "device key")
        #expect(!FileManager.default.fileExists(atPath: directory.keychain.appendingPathComponent("device.key").path))
    }

    @Test("Reliability 2: only passcode removal (akpu) and an erase delete wrapped class keys")
    func classKeysKept() throws {
        let keychain = try TestKeychain()
        let database = try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
        func names() throws -> Set<String> {
            var names: Set<String> = []
            try database.query("SELECT name FROM class_keys") { row in
                names.insert(row.text(0))
                return true
            }
            return names
        }
        // A key this build does not know (a later version's) survives passcode changes. With a passcode the keybag
        // also holds its passcode factor (access control), which only passcode removal deletes.
        try database.run("INSERT INTO class_keys (name, wrapped) VALUES ('future', x'00')")
        let everything = try names()
        try keychain.engine.setPasscode("1234", current: nil)
        #expect(try names() == everything.union(["akpu", KeybagRecord.passcodeFactorName]))
        try keychain.engine.setPasscode("5678", current: "1234")
        try keychain.reopen().unlock(passcode: "5678")
        #expect(try names() == everything.union(["akpu", KeybagRecord.passcodeFactorName]))
        try keychain.engine.removePasscode(current: "5678")
        #expect(try names() == everything)
    }
}

@Suite("Reliability: damage is not a lock state")
struct MissingClassKeyTests {
    private func deleteClassKey(_ name: String, in keychain: TestKeychain) throws {
        let database = try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
        #expect(try database.run("DELETE FROM class_keys WHERE name = ?", [.text(name)]) == 1)
    }

    @Test("Reliability 9: a missing class key on a keychain without a passcode is errSecDecode, not locked")
    func missingKeyWithoutPasscode() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("c", "one", [.accessible: .string("ck")])
        try keychain.engine.addPassword("d", "two", [.accessible: .string("dk")])
        try deleteClassKey("ck", in: keychain)
        let reopened = try keychain.reopen()
        #expect(status { _ = try reopened.password("c") } == .decode)
        #expect(try reopened.password("d") == "two")
    }

    @Test("Reliability 9: a class key missing after an unlock is errSecDecode; before it, locked")
    func missingKeyWithPasscode() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.addPassword("c", "one", [.accessible: .string("cku")])
        try deleteClassKey("cku", in: keychain)
        let reopened = try keychain.reopen()
        #expect(status { _ = try reopened.password("c") } == .interactionNotAllowed)
        try reopened.unlock(passcode: "1234")
        #expect(status { _ = try reopened.password("c") } == .decode)
    }
}
