import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

@Suite("Change feed: every write, attributes only, by group, in every lock state", .timeLimit(.minutes(2)))
struct ChangeFeedTests {
    private let everyone = Caller(applicationIdentifier: "TEAM.admin", accessGroups: ["TEAM.admin", "*"])

    private func feed(_ engine: Engine, since: Int64 = 0, for caller: Caller = app) throws -> [ItemChange] {
        try engine.changes(since: since, for: caller, limit: Engine.maximumChangeBatch).changes
    }

    private func query(_ account: String) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, attributes: genp(account))
    }

    @Test("Add, update, accessibility migration, delete and a synchronizable delete each record one change")
    func everyWrite() throws {
        let engine = try TestKeychain().engine
        let start = try engine.latestChangeSequence()
        let added = try engine.addPassword("a", "1")
        _ = try engine.update(query("a"), with: ItemChanges(data: Data("2".utf8)), for: app)
        _ = try engine.update(query("a"), with: ItemChanges(attributes: [.accessible: .string("ck")]), for: app)
        _ = try engine.delete(query("a"), for: app)
        try engine.addPassword("s", "x", [.synchronizable: .bool(true)])
        _ = try engine.delete(
            ItemQuery(itemClass: .genericPassword, attributes: genp("s"), synchronizable: .any), for: app)
        let changes = try feed(engine, since: start)
        #expect(changes.map(\.kind) == [.added, .updated, .updated, .removed, .added, .removed])
        #expect(changes.map(\.sequence) == Array((start + 1)...(start + 6)))
        #expect(changes[0].persistentReference == added.persistentReference)
        #expect(changes.allSatisfy { $0.itemClass == .genericPassword && $0.accessGroup == app.defaultGroup })
        #expect(
            changes.map(\.protectionClass) == [
                .whenUnlocked, .whenUnlocked, .afterFirstUnlock, .afterFirstUnlock,
                .whenUnlocked, .whenUnlocked,
            ])
        #expect(changes.map(\.isSynchronizable) == [false, false, false, false, true, true])
    }

    @Test("A batch records each add; a batch that fails records nothing")
    func batches() throws {
        let engine = try TestKeychain().engine
        try engine.batch(for: app) { (batch) throws(EngineError) in
            for index in 0..<3 {
                try batch.add(NewItem(itemClass: .genericPassword, attributes: genp("b\(index)")))
            }
        }
        #expect(try feed(engine).map(\.kind) == [.added, .added, .added])
        let failed = status {
            try engine.batch(for: app) { (batch) throws(EngineError) in
                try batch.add(NewItem(itemClass: .genericPassword, attributes: genp("c")))
                try batch.add(NewItem(itemClass: .genericPassword, attributes: genp("b0")))
            }
        }
        #expect(failed == .duplicateItem)
        #expect(try feed(engine).count == 3)
    }

    @Test("Only the caller's groups: another app sees nothing of this one's; a wildcard sees every group")
    func groups() throws {
        let engine = try TestKeychain().engine
        let other = Caller(applicationIdentifier: "TEAM.other")
        let shared = Caller(applicationIdentifier: "TEAM.third", accessGroups: ["TEAM.third", "TEAM.shared.*"])
        try engine.addPassword("mine", "1")
        try engine.addPassword("theirs", "2", caller: other)
        try engine.addPassword("shared", "3", [.accessGroup: .string("TEAM.shared.tokens")], caller: everyone)
        #expect(try feed(engine).map(\.accessGroup) == ["TEAM.com.example.app"])
        #expect(try feed(engine, for: other).map(\.accessGroup) == ["TEAM.other"])
        #expect(try feed(engine, for: shared).map(\.accessGroup) == ["TEAM.shared.tokens"])
        #expect(try feed(engine, for: everyone).count == 3)
        // The cursor passes the records the caller may not see, so a reader never examines one twice.
        let page = try engine.changes(since: 0, for: other, limit: 10)
        #expect(page.cursor == 3 && !page.hasMore)
    }

    @Test("Reading the feed needs nothing unlocked, and passcode removal records its deletions while locked")
    func locked() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        try engine.setPasscode("1234", current: nil)
        try engine.addPassword("p", "x", [.accessible: .string("akpu")])
        try engine.addPassword("u", "y")
        engine.lock()
        let reader = try keychain.reopen()  // another process: locked from the start
        #expect(reader.isAvailable(.whenUnlocked) == false)
        #expect(try feed(reader).map(\.kind) == [.added, .added])
        try engine.removePasscode(current: "1234")
        let last = try #require(try feed(reader).last)
        #expect(last.kind == .removed && last.protectionClass == .whenPasscodeSetThisDeviceOnly)
        #expect(last.accessGroup == app.defaultGroup)
    }

    @Test("The erase after wrong passcodes records a removal of every item, with its group")
    func erase() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        try engine.setPasscode("1234", current: nil)
        try engine.addPassword("a", "1", [.accessible: .string("dk")])
        try engine.addPassword("b", "2", caller: everyone)
        try engine.setEraseAfter(failures: 6, passcode: "1234")
        let before = try engine.latestChangeSequence()
        for attempt in 1...6 {
            _ = status { try engine.unlock(passcode: "bad") }
            if attempt == 5 { keychain.clock.advance(by: 3600) }
        }
        let removed = try feed(engine, since: before, for: everyone)
        #expect(removed.map(\.kind) == [.removed, .removed])
        #expect(Set(removed.compactMap(\.accessGroup)) == [app.defaultGroup, everyone.defaultGroup])
        // The new keybag has a new index key; the app still sees its own removal by its group's name.
        #expect(try feed(engine, since: before).count == 1)
    }

    @Test("Sequences only increase: across a delete of the newest item, a reopen and compaction")
    func sequencesNeverReused() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        try engine.addPassword("a", "1")
        try engine.addPassword("b", "2")
        _ = try engine.delete(query("b"), for: app)
        try engine.addPassword("c", "3")
        var sequences = try feed(engine).map(\.sequence)
        let reopened = try keychain.reopen()
        try reopened.addPassword("d", "4")
        try reopened.compactChangeLog(keepingLast: 1)
        try reopened.addPassword("e", "5")
        let horizon = try reopened.latestChangeSequence() - 2
        sequences += try feed(reopened, since: horizon).map(\.sequence)
        #expect(sequences == [1, 2, 3, 4, 5, 6])
    }

    @Test("A sequence older than what compaction kept, or newer than the log, is a resync with the oldest kept")
    func resyncNeeded() throws {
        let engine = try TestKeychain().engine
        for index in 0..<5 { try engine.addPassword("k\(index)", "v") }
        _ = try engine.delete(query("k0"), for: app)
        try engine.compactChangeLog(keepingLast: 2)
        var gap: EngineError?
        do { _ = try feed(engine, since: 1) } catch { gap = error as? EngineError }
        #expect(gap?.resyncSequence == 4)
        #expect(gap?.message.contains("resync needed") == true)
        #expect(try feed(engine, since: 4).map(\.kind) == [.added, .removed])
        var ahead: EngineError?
        do { _ = try feed(engine, since: 99) } catch { ahead = error as? EngineError }
        #expect(ahead?.resyncSequence == 4)
        #expect(status { _ = try engine.changes(since: 4, for: app, limit: 0) } == .param)
    }

    @Test("Pages: a limit cuts the feed and says more follows")
    func pages() throws {
        let engine = try TestKeychain().engine
        for index in 0..<5 { try engine.addPassword("k\(index)", "v") }
        let first = try engine.changes(since: 0, for: app, limit: 2)
        #expect(first.changes.map(\.sequence) == [1, 2] && first.hasMore && first.cursor == 2)
        let rest = try engine.changes(since: first.cursor, for: app, limit: 10)
        #expect(rest.changes.map(\.sequence) == [3, 4, 5] && !rest.hasMore)
        #expect(
            try engine.changes(since: 5, for: app, limit: 10) == ChangeBatch(changes: [], cursor: 5, hasMore: false))
    }

    @Test("A record's group cannot be moved to another record, and an edited record is refused")
    func tampering() throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        try engine.addPassword("a", "1")
        try engine.addPassword("b", "2", caller: everyone)
        let raw = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase()
        try raw.execute("UPDATE changes SET grp = (SELECT grp FROM changes WHERE seq = 1) WHERE seq = 2")
        #expect(status { _ = try feed(engine, for: everyone) } == .decode)
        try raw.execute("UPDATE changes SET grp = NULL, kind = 2 WHERE seq = 2")
        #expect(status { _ = try feed(engine, for: everyone) } == .decode)
    }

    @Test("Observers hear of this engine's commits and of another connection's, without polling")
    func notices() async throws {
        let keychain = try TestKeychain()
        let engine = keychain.engine
        let heard = Mutex(0)
        let observation = try engine.observeChanges { heard.withLock { $0 += 1 } }
        try engine.addPassword("a", "1")
        try await waitUntil { heard.withLock { $0 } > 0 }
        heard.withLock { $0 = 0 }
        // Another engine on the same files is what another process is: only the watcher can tell this one.
        let other = try keychain.reopen()
        try other.addPassword("b", "2")
        try await waitUntil { heard.withLock { $0 } > 0 }
        #expect(try feed(engine).map(\.kind) == [.added, .added])
        observation.cancel()
        heard.withLock { $0 = 0 }
        try other.addPassword("c", "3")
        try await Task.sleep(for: .milliseconds(200))
        #expect(heard.withLock { $0 } == 0)
    }

    /// Waits (up to ten seconds, a bound for a loaded machine, not a speed check) for `condition`.
    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<1_000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no change notice arrived within ten seconds")
    }
}

@Suite("Change feed: records from before schema 3")
struct LegacyChangeFeedTests {
    @Test("A record without a sealed group is matched by its group hash and reported without a name")
    func recordsWithoutGroup() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("old", "1")
        let raw = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase()
        try raw.execute("UPDATE changes SET grp = NULL")
        let engine = try keychain.reopen()
        let mine = try engine.changes(since: 0, for: app, limit: 10).changes
        #expect(mine.count == 1 && mine[0].accessGroup == nil)
        #expect(
            try engine.changes(since: 0, for: Caller(applicationIdentifier: "TEAM.other"), limit: 10).changes.isEmpty)
        let admin = Caller.administrator(defaultGroup: "TEAM.admin")
        #expect(try engine.changes(since: 0, for: admin, limit: 10).changes.count == 1)
        // Written again, the item's records name its group.
        _ = try engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("old")),
            with: ItemChanges(data: Data("2".utf8)), for: app)
        #expect(try engine.changes(since: 1, for: app, limit: 10).changes.map(\.accessGroup) == [app.defaultGroup])
    }
}

@Suite("Change feed: verification")
struct ChangeFeedVerificationTests {
    @Test("verify() reports a record whose sealed group was moved from another record")
    func movedGroup() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        try keychain.engine.addPassword("b", "2")
        #expect(try keychain.engine.verify().problems.isEmpty)
        let raw = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase()
        try raw.execute("UPDATE changes SET grp = (SELECT grp FROM changes WHERE seq = 1) WHERE seq = 2")
        #expect(try keychain.engine.verify().problems == ["1 change records fail authentication"])
    }
}
