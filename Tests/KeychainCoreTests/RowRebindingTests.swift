import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Issue 20, item 8: every clear column of a row — the `acl` column included — is bound into its associated data,
/// and the rows of an upgraded keychain are sealed again under that binding in place, once their class keys are
/// at hand, instead of keeping a weaker binding until each is rewritten.
@Suite("Row binding: the acl column is bound, and upgraded keychains are rebound in place")
struct RowRebindingTests {
    private let security = Caller(applicationIdentifier: "security", accessGroups: ["*"])

    private func open(_ directory: TemporaryDirectory) throws -> Engine {
        try Engine(storage: .directory(directory.keychain), options: EngineOptions(passcodeCost: .minimum))
    }

    private func query(_ account: String, _ service: String, _ returning: ReturnOptions = .data) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, attributes: genp(account, service: service), returning: returning)
    }

    private func secret(_ engine: Engine, _ account: String, _ service: String) throws -> String {
        String(
            decoding: try engine.copyMatching(query(account, service), for: security)[0].data ?? Data(), as: UTF8.self)
    }

    /// Edits the row of `account` behind the engine's back.
    private func edit(
        _ directory: TemporaryDirectory, with engine: Engine, _ assignment: String, account: String, service: String
    ) throws {
        let reference = try engine.copyMatching(query(account, service, .persistentReference), for: security)[0]
            .persistentReference
        let changed = try KeychainFiles(directory: directory.keychain).rawDatabase().run(
            "UPDATE items SET \(assignment) WHERE uuid = ?", [.blob(reference.uuidBytes)])
        try #require(changed == 1)
    }

    /// The sealed counter's legacy ceiling: rows at or below it may still carry an older binding.
    private func legacyCeiling(_ directory: TemporaryDirectory) throws -> Int64 {
        let stored = try IntegrityCounter.stored(in: KeychainFiles(directory: directory.keychain).rawDatabase())
        return try #require(stored).counter.legacyCeiling
    }

    @Test("A schema 1 keychain is rebound when it opens: a changed modification time no longer passes")
    func schemaOneRowsAreRebound() throws {
        let directory = try KeychainFiles.fixture("schema1-keychain")
        let engine = try open(directory)
        #expect(try secret(engine, "alice", "com.example.api") == "alice-secret-1")
        #expect(try engine.verify().isSound)
        #expect(try legacyCeiling(directory) == 0, "every row carries the current binding")
        // The first binding covered neither the modification time nor the sequence nor the service hash.
        try edit(directory, with: engine, "mdat = mdat + 1", account: "alice", service: "com.example.api")
        #expect(status { _ = try secret(try open(directory), "alice", "com.example.api") } == .decode)
        #expect(try secret(try open(directory), "bob", "com.example.api") == "bob-secret-2")
    }

    @Test("A schema 4 keychain is rebound at its first unlock: its acl column is then bound")
    func schemaFourRowsAreReboundAtUnlock() throws {
        let directory = try KeychainFiles.fixture("schema4-keychain")
        let locked = try open(directory)
        #expect(try secret(locked, "dee", "com.example.api") == "dee-secret", "a dk item reads while locked")
        #expect(try legacyCeiling(directory) > 0, "locked: the ak rows cannot be sealed again yet")
        try locked.unlock(passcode: "1234")
        #expect(try legacyCeiling(directory) == 0)
        #expect(try secret(locked, "alice", "com.example.api") == "alice-secret")
        #expect(try secret(locked, "bob", "com.example.api") == "bob-new")
        #expect(try secret(locked, "dee", "com.example.api") == "dee-secret")
        let carl = try locked.copyMatching(
            ItemQuery(
                itemClass: .genericPassword, attributes: genp("carl", service: "com.example.api"), returning: .data,
                authentication: ItemAuthentication(passcode: try Passcode(copying: "1234"))),
            for: security)
        #expect(carl.first?.data == Data("carl-secret".utf8))
        let erin = try locked.copyMatching(
            ItemQuery(itemClass: .internetPassword, attributes: [.server: .string("example.com")], returning: .data),
            for: security)
        #expect(erin.first?.data == Data("erin-secret".utf8))
        #expect(status { _ = try secret(locked, "sam", "com.example.sync") } == .itemNotFound)
        let report = try locked.verify()
        #expect(report.isSound, "\(report)")

        try edit(directory, with: locked, "acl = 0", account: "carl", service: "com.example.api")
        let reopened = try open(directory)
        try reopened.unlock(passcode: "1234")
        #expect(
            status { _ = try reopened.copyMatching(query("carl", "com.example.api", .attributes), for: security) }
                == .decode)
        #expect(try secret(reopened, "alice", "com.example.api") == "alice-secret")
    }
}
