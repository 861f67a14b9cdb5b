import Foundation
import Testing

@testable import KeychainCore

/// The change feed, which every ``KeychainBackend`` must keep (the conformance suite, feed part).
@Suite("Backend conformance: the change feed")
struct ChangeFeedConformanceTests {
    @Test(
        "Every write is one change, in order, of the caller's groups only, readable while locked",
        arguments: BackendFactory.all)
    func writes(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        let start = try backend.latestChangeSequence()
        try backend.addPassword("a", "1")
        _ = try backend.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("a")), with: ItemChanges(data: Data("2".utf8)),
            for: app)
        try backend.addPassword("theirs", "x", caller: Caller(applicationIdentifier: "TEAM.other"))
        _ = try backend.delete(ItemQuery(itemClass: .genericPassword, attributes: genp("a")), for: app)
        try backend.setPasscode("1234", current: nil)
        try backend.lock()
        let batch = try backend.changes(since: start, for: app, limit: 100)
        #expect(batch.changes.map(\.kind) == [.added, .updated, .removed])
        #expect(batch.changes.allSatisfy { $0.accessGroup == app.defaultGroup })
        #expect(batch.cursor == start + 4 && !batch.hasMore)
        #expect(try backend.latestChangeSequence() == start + 4)
        var ahead: EngineError?
        do { _ = try backend.changes(since: start + 99, for: app, limit: 10) } catch { ahead = error }
        #expect(ahead?.resyncSequence != nil)
        withExtendedLifetime(keychain) {}
    }

    @Test("Observers are told of a write", arguments: BackendFactory.all)
    func notices(_ factory: BackendFactory) async throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        let heard = HeardCount()
        let observation = try backend.observeChanges { heard.add() }
        defer { observation.cancel() }
        try backend.addPassword("a", "1")
        for _ in 0..<1_000 where heard.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(heard.count > 0)
        withExtendedLifetime(keychain) {}  // its directory stays until the end
    }
}
