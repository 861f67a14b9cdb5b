import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// A keychain the build before issue 23's storage changes made (`Tests/Fixtures/schema8-keychain`: schema 8, with
/// the group index, version 4 UUIDs, written through SQLite's default VFS, by that build's `security` command):
/// it opens, migrates in place, keeps every item and its history, and takes new writes beside the old ones.
@Suite("A keychain made by the previous build")
struct PreviousBuildKeychainTests {
    private let security = Caller(applicationIdentifier: "security", accessGroups: ["*"])

    private func password(_ engine: Engine, _ account: String) throws(EngineError) -> String? {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: genp(account, service: "com.example.api"), returning: .data)
        do throws(EngineError) {
            let found = try engine.copyMatching(query, for: security)
            return found.first?.data.map { String(decoding: $0, as: UTF8.self) }
        } catch  where error.code == .itemNotFound {
            return nil
        }
    }

    @Test("Schema 8 opens as schema 9 without the group index, every item and change kept, new writes beside them")
    func previousBuildKeychainMigrates() throws {
        let directory = try KeychainFiles.fixture("schema8-keychain")
        let path = KeychainDirectory(url: directory.keychain).databasePath
        #expect(try Database(path: path).first("PRAGMA user_version") { $0.integer(0) } == 8)
        let engine = try Engine(storage: .directory(directory.keychain))
        let database = try Database(path: path)
        #expect(try database.first("PRAGMA user_version") { $0.integer(0) } == Int64(Schema.migrations.count))
        #expect(try database.first("SELECT 1 FROM sqlite_master WHERE name = 'items_group'") { _ in true } == nil)

        #expect(try password(engine, "alice") == "alice-secret")
        #expect(try password(engine, "bob") == "bob-new")
        #expect(try password(engine, "carol") == nil)
        let erin = try engine.copyMatching(
            ItemQuery(itemClass: .internetPassword, attributes: [.server: .string("example.com")], returning: .data),
            for: security)
        #expect(erin.first?.data == Data("erin-secret".utf8))
        let oldReference = try #require(
            try engine.copyMatching(
                ItemQuery(
                    itemClass: .genericPassword, attributes: genp("alice", service: "com.example.api"),
                    returning: .persistentReference), for: security
            ).first?.persistentReference)
        #expect(oldReference.uuid.uuid.6 >> 4 == 4, "the old build's items keep their version 4 UUIDs")

        // The old changes, in order, then new writes beside the old items.
        let before = try engine.changes(since: 0, for: security, limit: 100).changes
        #expect(before.map(\.kind) == [.added, .added, .added, .added, .updated, .removed])
        try engine.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: genp("dave", service: "com.example.api"), data: Data("dave-secret".utf8)),
            for: security)
        _ = try engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("alice", service: "com.example.api")),
            with: ItemChanges(data: Data("alice-new".utf8)), for: security)
        #expect(
            try engine.delete(
                ItemQuery(itemClass: .genericPassword, attributes: genp("bob", service: "com.example.api")),
                for: security) == 1)
        #expect(try password(engine, "dave") == "dave-secret")
        #expect(try password(engine, "alice") == "alice-new")
        #expect(try password(engine, "bob") == nil)
        let after = try engine.changes(since: before.last?.sequence ?? 0, for: security, limit: 100).changes
        #expect(after.map(\.kind) == [.added, .updated, .removed])
        #expect(try engine.verify().isSound)
        // Reopened by another engine (another process would be the same): still sound, still there.
        let reopened = try Engine(storage: .directory(directory.keychain))
        #expect(try password(reopened, "alice") == "alice-new")
        #expect(try reopened.verify().isSound)
    }
}
