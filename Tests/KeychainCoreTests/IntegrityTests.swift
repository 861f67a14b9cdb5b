import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Issue 9's items 3 and 4: a rolled-back database, a damaged WAL, an older row put back, a record removed from
/// the change log and damage to clear columns are reported (`errSecDecode`), never served as current.
@Suite("Integrity: no stale or damaged item is served as current")
struct IntegrityTests {
    private func engine(at directory: URL, _ clock: TestClock = TestClock()) throws -> Engine {
        try Engine(storage: .directory(directory), options: EngineOptions(passcodeCost: .minimum, now: { clock.now }))
    }

    /// The error of reading `account`'s password, or `nil` with the password.
    private func read(_ engine: Engine, _ account: String) -> Result<String, EngineError> {
        do {
            return .success(try engine.password(account))
        } catch let error as EngineError {
            return .failure(error)
        } catch {
            return .failure(EngineError(.internalComponent, "\(error)"))
        }
    }

    private func rowColumns(_ files: KeychainFiles, account: String, in engine: Engine) throws -> (Data, Data, Data) {
        let reference = try engine.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp(account), returning: .persistentReference),
            for: app)[0].persistentReference
        let database = try files.rawDatabase()
        let row = try database.first(
            "SELECT uuid, agrp, pk FROM items WHERE uuid = ?", [.blob(reference.uuidBytes)]
        ) { ($0.blob(0) ?? Data(), $0.blob(1) ?? Data(), $0.blob(2) ?? Data()) }
        return try #require(row)
    }

    @Test("Reliability 3: a damaged WAL frame makes later commits vanish; that is refused, not served as current")
    func damagedWALIsRefused() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "one")
        try keychain.engine.checkpoint()
        _ = try keychain.engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("a")), with: ItemChanges(data: Data("two".utf8)),
            for: app)
        try keychain.engine.addPassword("b", "three")
        let files = KeychainFiles(directory: keychain.directory.keychain)
        #expect(try Data(contentsOf: files.wal).count > 32 + 24 + 4096, "the updates are in the WAL")

        // A crash leaves the files as they are while the engine is open; the copy is such a crash.
        let intact = try TemporaryDirectory()
        try files.copy(to: intact.keychain)
        #expect(try read(self.engine(at: intact.keychain), "a").get() == "two", "the crash copy itself is sound")

        let damaged = try TemporaryDirectory()
        try files.copy(to: damaged.keychain)
        try KeychainFiles.flipByte(of: KeychainFiles(directory: damaged.keychain).wal, at: 32 + 24 + 300)
        let reopened = try self.engine(at: damaged.keychain)
        guard case .failure(let error) = read(reopened, "a") else {
            Issue.record("a damaged WAL served a stale secret as current")
            return
        }
        #expect(error.code == .decode)
        #expect(error.message.contains("older than its last acknowledged change"))
        #expect(status { try reopened.addPassword("c", "new") } == .decode, "nothing is written over the damage")
        let report = try reopened.verify()
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.contains("older than its last acknowledged change") })
    }

    @Test("Reliability 3: an older copy of the database put back is refused")
    func rolledBackDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let files = KeychainFiles(directory: directory.keychain)
        let backup = try TemporaryDirectory()
        do {
            let engine = try self.engine(at: directory.keychain)
            try engine.addPassword("a", "one")
            try engine.checkpoint()
            try files.copy(to: backup.keychain)
            _ = try engine.update(
                ItemQuery(itemClass: .genericPassword, attributes: genp("a")),
                with: ItemChanges(data: Data("two".utf8)), for: app)
        }
        try files.restoreDatabase(from: backup.keychain)
        let reopened = try self.engine(at: directory.keychain)
        #expect(throws: EngineError.self) { try reopened.password("a") }
        #expect(status { _ = try reopened.password("a") } == .decode)
    }

    @Test("Reliability 3: an item's earlier row put back after an update is refused")
    func restoredRowIsRefused() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "one")
        try keychain.engine.addPassword("b", "bee")
        let files = KeychainFiles(directory: keychain.directory.keychain)
        let raw = try files.rawDatabase()
        let columns = "class, pdmn, sync, tomb, agrp, pk, svce, acct, srvr, seq, mdat, wrapped_key, metadata, secret"
        let (uuid, _, _) = try rowColumns(files, account: "a", in: keychain.engine)
        let old = try #require(
            try raw.first("SELECT \(columns) FROM items WHERE uuid = ?", [.blob(uuid)]) { row in
                (0..<14).map { column -> SQLValue in
                    if row.isNull(Int32(column)) { return .null }
                    switch column {
                    case 0, 1: return .text(row.text(Int32(column)))
                    case 2, 3, 9: return .integer(row.integer(Int32(column)))
                    case 10: return .real(row.real(Int32(column)))
                    default: return .blob(row.blob(Int32(column)) ?? Data())
                    }
                }
            })
        _ = try keychain.engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("a")), with: ItemChanges(data: Data("two".utf8)),
            for: app)
        let assignments = columns.split(separator: ", ").map { "\($0) = ?" }.joined(separator: ", ")
        try raw.run("UPDATE items SET \(assignments) WHERE uuid = ?", old + [.blob(uuid)])

        let reopened = try keychain.reopen()
        guard case .failure(let error) = read(reopened, "a") else {
            Issue.record("the earlier row was served as current")
            return
        }
        #expect(error.code == .decode)
        #expect(error.message.contains("not its latest version"))
        #expect(try reopened.password("b") == "bee", "only the restored item is refused")
        let report = try reopened.verify()
        #expect(report.damagedItems.count == 1)
    }

    @Test("Reliability 3: a change record removed from the log is detected")
    func removedChangeRecordIsDetected() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "one")
        try keychain.engine.addPassword("b", "two")
        try KeychainFiles(directory: keychain.directory.keychain).rawDatabase().run(
            "DELETE FROM changes WHERE seq = (SELECT MAX(seq) FROM changes)")
        let reopened = try keychain.reopen()
        #expect(status { _ = try reopened.password("a") } == .decode)
        #expect(try !reopened.verify().isSound)
    }

    @Test("Reliability 3: a sequence is never reused, even after the newest row is deleted")
    func sequencesAreNeverReused() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        try keychain.engine.addPassword("b", "2")
        let raw = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase()
        let top = try #require(try raw.first("SELECT MAX(seq) FROM items") { $0.integer(0) })
        _ = try keychain.engine.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("b")), for: app)
        try keychain.engine.addPassword("c", "3")
        let next = try #require(try raw.first("SELECT MAX(seq) FROM items") { $0.integer(0) })
        #expect(next == top + 2, "the delete took a sequence of its own, and the add the one after it")
        let kinds = try #require(
            try raw.first("SELECT group_concat(kind, '') FROM (SELECT kind FROM changes ORDER BY seq)") { $0.text(0) })
        #expect(kinds == "1131")
    }

    @Test("Reliability 3: a keychain made before the change log opens, migrates and keeps every secret")
    func keychainFromBeforeTheChangeLogMigrates() throws {
        let directory = try KeychainFiles.fixture("schema1-keychain")
        let security = Caller(applicationIdentifier: "security", accessGroups: ["*"])
        func secret(_ account: String, _ service: String = "com.example.api") throws -> String {
            let items = try self.engine(at: directory.keychain).copyMatching(
                ItemQuery(
                    itemClass: .genericPassword, attributes: genp(account, service: service), returning: .data),
                for: security)
            return String(decoding: items[0].data ?? Data(), as: UTF8.self)
        }
        #expect(try secret("alice") == "alice-secret-1")
        #expect(try secret("bob") == "bob-secret-2")
        #expect(try secret("erin") == "erin-new-4")
        #expect(status { _ = try secret("dave", "gone") } == .itemNotFound)
        let engine = try self.engine(at: directory.keychain)
        let inet = try engine.copyMatching(
            ItemQuery(itemClass: .internetPassword, attributes: [.server: .string("example.com")], returning: .data),
            for: security)
        #expect(inet.first?.data == Data("carol-secret-3".utf8))
        #expect(try engine.verify().isSound)
        _ = try engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("alice", service: "com.example.api")),
            with: ItemChanges(data: Data("rotated".utf8)), for: security)
        _ = try engine.delete(
            ItemQuery(itemClass: .genericPassword, attributes: genp("bob", service: "com.example.api")), for: security)
        #expect(try secret("alice") == "rotated")
        #expect(status { _ = try secret("bob") } == .itemNotFound)
        let report = try self.engine(at: directory.keychain).verify()
        #expect(report.isSound, "\(report)")
        #expect(report.itemCount == 3)
    }

    @Test("Reliability 4: a zeroed service hash is errSecDecode for that item on an exact lookup, not 'not found'")
    func zeroedServiceHashIsDecode() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "one")
        try keychain.engine.addPassword("b", "two")
        let files = KeychainFiles(directory: keychain.directory.keychain)
        let (uuid, _, _) = try rowColumns(files, account: "a", in: keychain.engine)
        try files.rawDatabase().run("UPDATE items SET svce = zeroblob(16) WHERE uuid = ?", [.blob(uuid)])
        let reopened = try keychain.reopen()
        #expect(status { _ = try reopened.password("a") } == .decode)
        #expect(
            status { _ = try reopened.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("a")), for: app) }
                == .decode)
        #expect(status { try reopened.addPassword("a", "again") } == .duplicateItem)
        #expect(try reopened.password("b") == "two")
        let report = try reopened.verify()
        #expect(report.damagedItems.map(\.persistentReference?.uuidBytes) == [uuid])
    }

    @Test(
        "Reliability 4: a flipped class or tombstone byte is errSecDecode for that item, not 'not found'",
        arguments: ["class", "tomb"])
    func flippedClearColumnIsDecode(column: String) throws {
        let directory = try TemporaryDirectory()
        let files = KeychainFiles(directory: directory.keychain)
        var columns: (Data, Data, Data)
        do {
            let engine = try self.engine(at: directory.keychain)
            try engine.addPassword("a", "one")
            try engine.addPassword("b", "two")
            columns = try rowColumns(files, account: "a", in: engine)
            try engine.checkpoint()
        }
        let header = try #require(
            try files.recordHeaderOffset(ofRowWith: columns.0, groupHash: columns.1, primaryKeyHash: columns.2))
        var bytes = try Data(contentsOf: files.database)
        if column == "tomb" {
            #expect(bytes[header + 5] == 8, "tomb is the integer 0")
            bytes[header + 5] = 9  // the integer 1, with no body bytes: the record keeps its layout
        } else {
            let body = try #require(bytes.range(of: columns.0 + Data("genp".utf8)))
            bytes.replaceSubrange((body.upperBound - 4)..<body.upperBound, with: Data("inet".utf8))
        }
        try bytes.write(to: files.database)

        let reopened = try self.engine(at: directory.keychain)
        #expect(status { _ = try reopened.password("a") } == .decode)
        #expect(status { try reopened.addPassword("a", "again") } == .duplicateItem)
        #expect(try reopened.password("b") == "two")
        let report = try reopened.verify()
        #expect(report.damagedItems.contains { $0.persistentReference?.uuidBytes == columns.0 })
    }

    @Test(
        "Compaction keeps each item's latest record, sequences only increase across it, and a row put back stays refused"
    )
    func compactionKeepsWhatChecksNeed() throws {
        let keychain = try TestKeychain()
        for account in ["a", "b", "c", "d"] { try keychain.engine.addPassword(account, "1") }
        let files = KeychainFiles(directory: keychain.directory.keychain)
        let raw = try files.rawDatabase()
        let (uuid, _, _) = try rowColumns(files, account: "a", in: keychain.engine)
        let columns = "seq, mdat, wrapped_key, metadata, secret"
        let old = try #require(
            try raw.first("SELECT \(columns) FROM items WHERE uuid = ?", [.blob(uuid)]) { row in
                [SQLValue.integer(row.integer(0)), .real(row.real(1))] + (2..<5).map { .blob(row.blob($0) ?? Data()) }
            })
        _ = try keychain.engine.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("d")), for: app)
        for round in 2...4 {
            for account in ["a", "b"] {
                _ = try keychain.engine.update(
                    ItemQuery(itemClass: .genericPassword, attributes: genp(account)),
                    with: ItemChanges(data: Data("\(round)".utf8)), for: app)
            }
        }
        let before = try #require(
            try raw.first("SELECT MAX(seq), count(*) FROM changes") { ($0.integer(0), $0.integer(1)) })
        #expect(before.1 == 11)

        try keychain.engine.compactChangeLog(keepingLast: 1)
        let kept = try #require(try raw.first("SELECT count(*) FROM changes") { $0.integer(0) })
        #expect(kept == 3, "one record for each of a, b and c; d's removal left no row")
        #expect(try keychain.engine.verify().isSound)
        let reopened = try keychain.reopen()
        #expect(try reopened.password("a") == "4" && reopened.password("c") == "1")
        try reopened.addPassword("e", "1")
        let next = try #require(try raw.first("SELECT MAX(seq) FROM changes") { $0.integer(0) })
        #expect(next == before.0 + 1, "a sequence is never reused after compaction")

        let assignments = columns.split(separator: ", ").map { "\($0) = ?" }.joined(separator: ", ")
        try raw.run("UPDATE items SET \(assignments) WHERE uuid = ?", old + [.blob(uuid)])
        #expect(status { _ = try keychain.reopen().password("a") } == .decode, "its record was compacted away")
        #expect(try !keychain.reopen().verify().isSound)
    }

    @Test("Compaction in steps deletes exactly the records one compaction of the whole log deletes")
    func compactionInStepsMatchesOneCompaction() throws {
        // The same writes on two keychains: one compacted every few changes (each compaction examines only what
        // changed since the last), one compacted once at the end (it examines every record). Same sequences kept.
        let stepped = try TestKeychain()
        let whole = try TestKeychain()
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accounts: [String] = []
        for step in 0..<400 {
            let choice = accounts.isEmpty ? 0 : next(3)
            let index = accounts.isEmpty ? 0 : next(accounts.count)
            for keychain in [stepped, whole] {
                switch choice {
                case 0: try keychain.engine.addPassword("account-\(step)", "1")
                case 1:
                    _ = try keychain.engine.update(
                        ItemQuery(itemClass: .genericPassword, attributes: genp(accounts[index])),
                        with: ItemChanges(data: Data("\(step)".utf8)), for: app)
                default:
                    _ = try keychain.engine.delete(
                        ItemQuery(itemClass: .genericPassword, attributes: genp(accounts[index])),
                        for: app)
                }
            }
            switch choice {
            case 0: accounts.append("account-\(step)")
            case 1: break
            default: accounts.remove(at: index)
            }
            if step % 23 == 0 { try stepped.engine.compactChangeLog(keepingLast: 17) }
        }
        try stepped.engine.compactChangeLog(keepingLast: 17)
        try whole.engine.compactChangeLog(keepingLast: 17)
        func kept(_ keychain: TestKeychain) throws -> [Int64] {
            var sequences: [Int64] = []
            try KeychainFiles(directory: keychain.directory.keychain).rawDatabase().query(
                "SELECT seq FROM changes ORDER BY seq", []
            ) { row in
                sequences.append(row.integer(0))
                return true
            }
            return sequences
        }
        let steppedKept = try kept(stepped)
        #expect(steppedKept == (try kept(whole)))
        #expect(steppedKept.count < 400, "compaction deleted records")
        #expect(try stepped.engine.verify().isSound)
        #expect(try whole.engine.verify().isSound)
    }
}
