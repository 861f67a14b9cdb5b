import Foundation
import Testing

@testable import KeychainCore

/// The writes clients used to compose by hand, which every ``KeychainBackend`` must make in one transaction: a
/// batch of adds and an add-or-update (the conformance suite, compound writes part).
@Suite("Backend conformance: batches and add-or-update")
struct WriteConformanceTests {
    private func item(_ account: String, _ secret: String, _ extra: ItemAttributes = [:]) -> NewItem {
        NewItem(itemClass: .genericPassword, attributes: genp(account, extra), data: Data(secret.utf8))
    }

    @Test("A batch commits all its adds together, or none of them", arguments: BackendFactory.all)
    func batch(_ factory: BackendFactory) throws {
        let backend = try factory.open().backend
        let added = try backend.add((0..<10).map { item("b\($0)", "\($0)") }, for: app)
        #expect(added.map { $0.attributes.string(.account) } == (0..<10).map { "b\($0)" })
        #expect(added.allSatisfy { $0.attributes.string(.accessGroup) == app.defaultGroup })
        #expect(try backend.password("b7") == "7")
        // A duplicate of a stored item, or of an earlier item of the same batch, adds nothing.
        #expect(status { _ = try backend.add([item("c1", "x"), item("b3", "x")], for: app) } == .duplicateItem)
        #expect(status { _ = try backend.add([item("c2", "x"), item("c2", "y")], for: app) } == .duplicateItem)
        // So does any other refusal, whatever its place in the batch.
        let tooLarge = NewItem(
            itemClass: .genericPassword, attributes: genp("c3"),
            data: Data(count: ItemValidator.maximumDataByteCount + 1))
        #expect(status { _ = try backend.add([item("c4", "x"), tooLarge], for: app) } == .dataTooLarge)
        for account in ["c1", "c2", "c3", "c4"] {
            #expect(status { _ = try backend.password(account) } == .itemNotFound)
        }
        #expect(try backend.add([], for: app).isEmpty)
        #expect(try backend.copyMatching(ItemQuery(itemClass: .genericPassword, limit: .all), for: app).count == 10)
    }

    @Test("Add-or-update adds a missing item, and writes over an existing one in place", arguments: BackendFactory.all)
    func addOrUpdate(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let backend = keychain.backend
        let first = try backend.addOrUpdate(item("a", "one", [.label: .string("L"), .comment: .string("C")]), for: app)
        #expect(first.attributes.string(.accessGroup) == app.defaultGroup)
        #expect(try backend.password("a") == "one")
        let created = first.attributes[.creationDate]?.dateValue
        keychain.clock.advance(by: 10)

        let second = try backend.addOrUpdate(
            item("a", "two", [.label: .string("M"), .accessible: .string("dku")]), for: app)
        #expect(second.persistentReference == first.persistentReference)
        #expect(try backend.password("a") == "two")
        let stored = try backend.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp("a"), limit: .all, returning: .attributes), for: app
        )
        #expect(stored.count == 1)
        // Named attributes are written, the others kept; the creation date stays and mdat is now.
        #expect(stored.first?.attributes.string(.label) == "M")
        #expect(stored.first?.attributes.string(.comment) == "C")
        #expect(stored.first?.attributes.string(.accessible) == "dku")
        #expect(stored.first?.attributes[.creationDate]?.dateValue == created)
        #expect(stored.first?.attributes[.modificationDate]?.dateValue == keychain.clock.now)
        #expect(stored.first?.attributes == second.attributes)

        // The synchronizable copy and another service are other items.
        try backend.addOrUpdate(item("a", "synced", [.synchronizable: .bool(true)]), for: app)
        try backend.addOrUpdate(
            NewItem(itemClass: .genericPassword, attributes: genp("a", service: "other"), data: Data("3".utf8)),
            for: app)
        #expect(try backend.password("a") == "two")
        #expect(try backend.password("a", synchronizable: .synchronizableOnly) == "synced")
        #expect(
            try backend.copyMatching(
                ItemQuery(itemClass: .genericPassword, synchronizable: .any, limit: .all), for: app
            ).count == 3)
    }

    @Test("Add-or-update refuses as add and update do, and changes nothing then", arguments: BackendFactory.all)
    func addOrUpdateRefusals(_ factory: BackendFactory) throws {
        let backend = try factory.open().backend
        try backend.addPassword("a", "one")
        let shared = Caller(
            applicationIdentifier: "TEAM.com.example.app", accessGroups: ["TEAM.com.example.app", "TEAM.shared"])
        #expect(
            status { _ = try backend.addOrUpdate(item("a", "x", [.accessGroup: .string("TEAM.other")]), for: app) }
                == .missingEntitlement)
        #expect(
            status { _ = try backend.addOrUpdate(item("a", "x", [.server: .string("s")]), for: app) }
                == .noSuchAttribute)
        #expect(
            status {
                _ = try backend.addOrUpdate(
                    item("a", "x", [.synchronizable: .bool(true), .accessible: .string("aku")]), for: app)
            }
                == .param)
        let tooLarge = NewItem(
            itemClass: .genericPassword, attributes: genp("a"),
            data: Data(count: ItemValidator.maximumDataByteCount + 1))
        #expect(status { _ = try backend.addOrUpdate(tooLarge, for: app) } == .dataTooLarge)
        // The item in another group of the caller is not the one its default group names.
        try backend.addOrUpdate(item("a", "in shared", [.accessGroup: .string("TEAM.shared")]), for: shared)
        #expect(try backend.password("a") == "one")

        // A locked class, the old one or the new one, is refused and nothing changes.
        try backend.setPasscode("1234", current: nil)
        try backend.addPassword("locked", "secret", [.accessible: .string("ak")])
        try backend.addPassword("open", "secret", [.accessible: .string("dk")])
        try backend.lock()
        #expect(
            status { _ = try backend.addOrUpdate(item("locked", "x", [.accessible: .string("dk")]), for: app) }
                == .interactionNotAllowed)
        #expect(
            status { _ = try backend.addOrUpdate(item("open", "x", [.accessible: .string("ak")]), for: app) }
                == .interactionNotAllowed)
        #expect(
            status { _ = try backend.addOrUpdate(item("new", "x", [.accessible: .string("ak")]), for: app) }
                == .interactionNotAllowed)
        try backend.unlock(passcode: "1234")
        #expect(try backend.password("locked") == "secret" && backend.password("open") == "secret")
        #expect(status { _ = try backend.password("new") } == .itemNotFound)
    }
}
