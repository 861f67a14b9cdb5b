import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Issue 20, item 8: damage that would hide an item. A clear column changed with SQLite itself (so the row leaves
/// or changes its index entries, as a byte flip in the file does not) must not make an item vanish from an exact
/// lookup: the change log says the item exists, so the lookup answers `errSecDecode` naming it.
@Suite("Damage that hides an item is errSecDecode naming the item on an exact lookup")
struct HiddenDamageTests {
    /// A keychain with items `a` and `b`, and `a`'s persistent reference.
    private func keychain() throws -> (TestKeychain, PersistentReference) {
        let keychain = try TestKeychain()
        let item = try keychain.engine.addPassword("a", "one")
        try keychain.engine.addPassword("b", "two")
        return (keychain, item.persistentReference)
    }

    /// Runs `sql` on the keychain's database behind the engine's back, with `?` bound to the item's UUID.
    private func edit(_ keychain: TestKeychain, _ sql: String, _ reference: PersistentReference) throws {
        let changed = try KeychainFiles(directory: keychain.directory.keychain).rawDatabase().run(
            sql, [.blob(reference.uuidBytes)])
        try #require(changed == 1, "the edit changed \(changed) rows")
    }

    /// The error an operation threw, or `nil`.
    private func error(_ body: () throws -> Void) -> EngineError? {
        do {
            try body()
            return nil
        } catch let error as EngineError {
            return error
        } catch {
            return EngineError(.internalComponent, "\(error)")
        }
    }

    /// Every exact-lookup operation on `a` is errSecDecode naming `reference`; `b` is untouched.
    private func expectHidden(_ engine: Engine, _ reference: PersistentReference) {
        let query = ItemQuery(itemClass: .genericPassword, attributes: genp("a"))
        let operations: [(String, () throws -> Void)] = [
            ("read", { _ = try engine.password("a") }),
            (
                "attributes",
                {
                    var attributes = query
                    attributes.returning = .attributes
                    _ = try engine.copyMatching(attributes, for: app)
                }
            ),
            ("update", { _ = try engine.update(query, with: ItemChanges(data: Data("x".utf8)), for: app) }),
            ("delete", { _ = try engine.delete(query, for: app) }),
        ]
        for (name, operation) in operations {
            let failure = error(operation)
            #expect(failure?.code == .decode, "\(name): \(failure.map { "\($0)" } ?? "succeeded")")
            #expect(failure?.message.contains(reference.description) == true, "\(name): \(failure?.message ?? "")")
        }
        #expect((try? engine.password("b")) == "two", "only the damaged item is refused")
    }

    @Test("The tombstone column set with SQLite: the row leaves the primary-key index, the log still has the item")
    func tombstoneColumn() throws {
        let (keychain, reference) = try keychain()
        try edit(keychain, "UPDATE items SET tomb = 1 WHERE uuid = ?", reference)
        expectHidden(try keychain.reopen(), reference)
    }

    @Test("The class column set to another class, or to no class at all, names the item by its real class")
    func classColumn() throws {
        for value in ["inet", "gen!"] {
            let (keychain, reference) = try keychain()
            try edit(keychain, "UPDATE items SET class = '\(value)' WHERE uuid = ?", reference)
            expectHidden(try keychain.reopen(), reference)
        }
    }

    @Test("The primary-key hash column changed: no row answers the key, the log says the item exists")
    func primaryKeyColumn() throws {
        let (keychain, reference) = try keychain()
        try edit(keychain, "UPDATE items SET pk = zeroblob(32) WHERE uuid = ?", reference)
        expectHidden(try keychain.reopen(), reference)
    }

    @Test("The protection-class column changed: a lookup that names the item's class still sees the damage")
    func protectionClassColumn() throws {
        let (keychain, reference) = try keychain()
        try edit(keychain, "UPDATE items SET pdmn = 'dk' WHERE uuid = ?", reference)
        let reopened = try keychain.reopen()
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: genp("a", [.accessible: .string("ak")]), returning: .data)
        let failure = error { _ = try reopened.copyMatching(query, for: app) }
        #expect(failure?.code == .decode, "\(failure.map { "\($0)" } ?? "found")")
        #expect(failure?.message.contains(reference.description) == true)
    }

    @Test("The acl column cleared under an item with access control: its attributes are not served as plain")
    func aclColumnCleared() throws {
        let keychain = try TestKeychain()
        let flags = AccessConstraint.Flags.applicationPassword
        let item = try keychain.engine.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: genp("a", [.accessControl: try AccessConstraint(flags: flags).attributeValue]),
                data: Data("one".utf8),
                authentication: ItemAuthentication(applicationPassword: try Passcode(copying: "pw"))),
            for: app)
        try edit(keychain, "UPDATE items SET acl = 0 WHERE uuid = ?", item.persistentReference)
        let reopened = try keychain.reopen()
        let failure = error {
            _ = try reopened.copyMatching(
                ItemQuery(itemClass: .genericPassword, attributes: genp("a"), returning: .attributes), for: app)
        }
        #expect(failure?.code == .decode, "\(failure.map { "\($0)" } ?? "served as an item without access control")")
        #expect(failure?.message.contains(item.persistentReference.description) == true)
    }

    @Test("The acl column set under a plain item is errSecDecode naming it")
    func aclColumnSet() throws {
        let (keychain, reference) = try keychain()
        try edit(keychain, "UPDATE items SET acl = 1 WHERE uuid = ?", reference)
        expectHidden(try keychain.reopen(), reference)
    }

    @Test("No false alarm: deleted, renamed and synchronizable-deleted items are simply not found")
    func noFalseAlarm() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("gone", "1")
        _ = try keychain.engine.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("gone")), for: app)
        try keychain.engine.addPassword("old", "1")
        _ = try keychain.engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("old")),
            with: ItemChanges(attributes: [.account: .string("new")]), for: app)
        try keychain.engine.addPassword("synced", "1", [.synchronizable: .bool(true)])
        _ = try keychain.engine.delete(
            ItemQuery(itemClass: .genericPassword, attributes: genp("synced"), synchronizable: .synchronizableOnly),
            for: app)
        try keychain.engine.addPassword("dk", "1", [.accessible: .string("dk")])
        let engine = try keychain.reopen()
        #expect(status { _ = try engine.password("gone") } == .itemNotFound)
        #expect(status { _ = try engine.password("old") } == .itemNotFound)
        #expect(try engine.password("new") == "1")
        #expect(status { _ = try engine.password("synced", synchronizable: .synchronizableOnly) } == .itemNotFound)
        let otherClass = ItemQuery(
            itemClass: .genericPassword, attributes: genp("dk", [.accessible: .string("ak")]), returning: .data)
        #expect(status { _ = try engine.copyMatching(otherClass, for: app) } == .itemNotFound)
        try engine.addPassword("gone", "2")
        #expect(try engine.password("gone") == "2")
        #expect(try engine.verify().isSound)
    }
}
