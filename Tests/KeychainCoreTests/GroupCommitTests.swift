import Foundation
import Testing

@testable import KeychainCore

@Suite("Group commit: several callers' writes in one transaction, each all or nothing")
struct GroupCommitTests {
    private func genpItem(_ account: String, _ secret: String) -> NewItem {
        NewItem(itemClass: .genericPassword, attributes: genp(account), data: Data(secret.utf8))
    }

    @Test("A refused write changes nothing and leaves the others; sequences stay contiguous; verify is clean")
    func mixed() throws {
        let engine = try TestKeychain().engine
        try engine.addPassword("existing", "0")
        let other = Caller(applicationIdentifier: "TEAM.other")
        let results = engine.commitTogether([
            (.add(genpItem("a", "1")), app),
            (.add(genpItem("existing", "dup")), app),
            (
                .update(
                    ItemQuery(itemClass: .genericPassword, attributes: genp("a")), ItemChanges(data: Data("2".utf8))),
                app
            ),
            (.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("missing"))), app),
            (.addOrUpdate(genpItem("existing", "3")), app),
            (.add(genpItem("a", "theirs")), other),
            (.update(ItemQuery(itemClass: .genericPassword), ItemChanges()), app),
        ])
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true, false, true, true, false])
        if case .failure(let error) = results[1] { #expect(error.code == .duplicateItem) }
        if case .failure(let error) = results[3] { #expect(error.code == .itemNotFound) }
        if case .failure(let error) = results[6] { #expect(error.code == .param) }
        #expect(try engine.password("a") == "2")
        #expect(try engine.password("existing") == "3")
        #expect(try engine.password("a", caller: other) == "theirs")
        let feed = try engine.changes(since: 1, for: .administrator(defaultGroup: "x"), limit: 100).changes
        #expect(feed.map(\.sequence) == [2, 3, 4, 5])
        #expect(feed.map(\.kind) == [.added, .updated, .updated, .added])
        #expect(try engine.verify().problems.isEmpty)
    }

    @Test("Writes that queue while a group is written join its transaction: in order, a refused one changes nothing")
    func joining() throws {
        let engine = try TestKeychain().engine
        try engine.addPassword("existing", "0")
        var rounds: [[(BackendRequest, Caller)]] = [
            [(.add(genpItem("b", "2")), app), (.add(genpItem("existing", "dup")), app)],
            [(.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("a"))), app)],
            // Its checks take the lock the group holds: refused, never run.
            [(.addOrUpdate(genpItem("c", "3")), app)],
        ]
        var asked = 0
        let results = engine.commitTogether([(.add(genpItem("a", "1")), app)]) {
            asked += 1
            return rounds.isEmpty ? [] : rounds.removeFirst()
        }
        #expect(asked == 4)
        #expect(results.map { (try? $0.get()) != nil } == [true, true, false, true, false])
        if case .failure(let error) = results[2] { #expect(error.code == .duplicateItem) }
        if case .failure(let error) = results[4] { #expect(error.code == .internalComponent) }
        #expect(throws: EngineError.self) { try engine.password("a") }
        #expect(try engine.password("b") == "2")
        #expect(throws: EngineError.self) { try engine.password("c") }
        let feed = try engine.changes(since: 1, for: .administrator(defaultGroup: "x"), limit: 100).changes
        #expect(feed.map(\.sequence) == [2, 3, 4])
        #expect(feed.map(\.kind) == [.added, .added, .removed])
        #expect(try engine.verify().problems.isEmpty)
    }

    @Test("writeEach: one transaction, each write alone in its effect, outcomes in order, through any backend")
    func writeEach() throws {
        let engine = try TestKeychain().engine
        try engine.addPassword("existing", "0")
        let before = try engine.latestChangeSequence()
        let outcomes = try engine.writeEach(
            [
                .add(genpItem("a", "1")), .add(genpItem("existing", "dup")),
                .update(
                    ItemQuery(itemClass: .genericPassword, attributes: genp("a")), ItemChanges(data: Data("2".utf8))),
                .lock,
            ], for: app)
        #expect(outcomes.count == 4)
        guard case .success(let added) = outcomes[0], case .failure(let duplicate) = outcomes[1],
            case .success(let updated) = outcomes[2], case .failure(let notWrite) = outcomes[3]
        else {
            Issue.record("outcomes: \(outcomes)")
            return
        }
        #expect(duplicate.code == .duplicateItem && notWrite.code == .param)
        #expect(added.changeSequence == before + 1 && updated.changeSequence == before + 2)
        #expect(updated.items.first?.persistentReference == added.items.first?.persistentReference)
        #expect(try engine.password("a") == "2")
        #expect(try engine.password("existing") == "0")
        #expect(try engine.verify().problems.isEmpty)
    }

    @Test("Only writes whose checks take no lock may join a running group")
    func joinable() {
        let query = ItemQuery(itemClass: .genericPassword, attributes: genp("a"))
        #expect(BackendRequest.add(genpItem("a", "1")).canJoinRunningGroup)
        #expect(BackendRequest.delete(query).canJoinRunningGroup)
        #expect(BackendRequest.update(query, ItemChanges(attributes: [.label: .string("l")])).canJoinRunningGroup)
        #expect(!BackendRequest.update(query, ItemChanges(data: Data("2".utf8))).canJoinRunningGroup)
        #expect(!BackendRequest.addOrUpdate(genpItem("a", "1")).canJoinRunningGroup)
    }

    @Test("A refused engine fails every write of the group")
    func refused() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        keychain.engine.lock()
        let results = keychain.engine.commitTogether([(.add(genpItem("a", "1")), app)])
        #expect(results.count == 1)
        if case .failure(let error) = results[0] {
            #expect(error.code == .interactionNotAllowed)
        } else {
            Issue.record("a locked class accepted a grouped add")
        }
    }
}
