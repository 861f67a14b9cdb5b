import Foundation
import Testing

@testable import Keychain

@Suite("Change stream: writes to matching items, as the change feed records them", .timeLimit(.minutes(1)))
struct ChangeStreamTests {
    /// The first `count` changes of a stream, as "kind account" lines.
    private func first(
        _ count: Int, of changes: KeychainChanges<GenericPassword>
    ) async -> [String] {
        var lines: [String] = []
        for await change in changes {
            switch change {
            case .added(let item): lines.append("added \(item.account)")
            case .updated(let item): lines.append("updated \(item.account)")
            case .removed(let item): lines.append("removed \(item.account)")
            }
            if lines.count == count { break }
        }
        return lines
    }

    @Test("Adds, updates and removes through another value on the same directory are reported in order")
    func acrossValues() async throws {
        let fixture = try TestKeychain()
        let changes = try fixture.keychain.changes()
        let writer = try fixture.reopened()
        try await writer.service("elsewhere").set("ignored", for: "x")
        try await writer.set("1", for: "a")
        try await writer.set("2", for: "a")
        try await writer.set("3", for: "b")
        try await writer.remove("a")
        try await writer.removeAll()
        #expect(
            await first(5, of: changes) == ["added a", "updated a", "added b", "removed a", "removed b"])
    }

    @Test("Changes carry attributes, and matching follows the query")
    func attributesAndQuery() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let labelled = try keychain.changes(matching: GenericPassword.Query(label: "watched"))
        try await keychain.add(GenericPassword(account: "no", service: "s"), secret: Data("x".utf8))
        let stored = try await keychain.add(
            GenericPassword(account: "yes", service: "s", label: "watched"), secret: Data())
        var moved = stored
        moved.label = "elsewhere"
        try await keychain.update(moved)
        try await keychain.add(GenericPassword(account: "end", service: "s", label: "watched"), secret: Data())
        var received: [KeychainChange<GenericPassword>] = []
        for await change in labelled {
            received.append(change)
            if received.count == 3 { break }
        }
        #expect(received.map(\.item.account) == ["yes", "yes", "end"])
        #expect(received.first == .added(stored))
        // The update moved the item out of the query: it is still reported, with its new attributes.
        #expect(received.dropFirst().first?.item.label == "elsewhere")
    }

    @Test("Internet password changes, and items of groups the identity lacks are not reported")
    func internetAndGroups() async throws {
        let fixture = try TestKeychain()
        let other = try fixture.reopened(identity: otherIdentity())
        let changes = try fixture.keychain.changes(matching: InternetPassword.Query())
        try await other.add(InternetPassword(account: "theirs", server: "s"), secret: Data())
        try await fixture.keychain.add(InternetPassword(account: "mine", server: "s"), secret: Data())
        let mine = try #require(await fixture.keychain.items(matching: InternetPassword.Query()).first)
        for await change in changes {
            #expect(change == .added(mine))
            break
        }
    }

    @Test("Migration and passcode removal are reported")
    func migrationAndPasscodeRemoval() async throws {
        let keychain = try TestKeychain().keychain
        try await keychain.set("s", for: "k")
        try await keychain.setPasscode("1234")
        try await keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("p", for: "passcode-only")
        let changes = try keychain.changes()
        try await keychain.migrateAccessibility(of: GenericPassword.Query(account: "k"), to: .always)
        try await keychain.removePasscode("1234")
        #expect(await first(2, of: changes) == ["updated k", "removed passcode-only"])
        #expect(try await keychain.get("passcode-only") == nil)
    }

    @Test("A stream buffers changes made before iteration; ending it removes its observer")
    func lifecycle() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let hub = keychain.connection.changes
        #expect(!hub.isObserved)
        do {
            let changes = try keychain.changes()
            #expect(hub.isObserved)
            for index in 0..<10 { try await keychain.set("\(index)", for: "k\(index)") }
            #expect(await first(10, of: changes).count == 10)
        }
        #expect(!hub.isObserved)
    }

    @Test("A slow consumer keeps only the newest changes, up to the buffer limit")
    func boundedBuffer() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let changes = try keychain.changes()
        let limit = KeychainChanges<GenericPassword>.bufferLimit
        // The blocking writes: a thousand async ones each wait for a turn of the shared pool, which other tests'
        // work holds on a loaded two-core machine (one ran past its minute that way).
        func writeAll() throws {
            for index in 0..<(limit + 5) { try keychain.set("v", for: "k\(index)") }
        }
        try writeAll()
        #expect(await first(1, of: changes) == ["added k5"])
    }

    @Test("Cancelling the iterating task ends the stream and removes its observer")
    func cancellation() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let changes = try keychain.changes()
        let consumer = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        try await keychain.set("v", for: "k")
        consumer.cancel()
        #expect(await consumer.value <= 1)
        #expect(!keychain.connection.changes.isObserved)
    }

    @Test("Concurrent writers: every add is reported exactly once")
    func concurrentWriters() async throws {
        let fixture = try TestKeychain()
        let changes = try fixture.keychain.changes()
        let writers = [fixture.keychain, try fixture.reopened()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { try await writers[index % 2].set("v", for: "k\(index)") }
            }
            try await group.waitForAll()
        }
        var accounts: [String] = []
        for await change in changes {
            guard case .added(let item) = change else { continue }
            accounts.append(item.account)
            if accounts.count == 200 { break }
        }
        #expect(Set(accounts) == Set((0..<200).map { "k\($0)" }))
    }
}
