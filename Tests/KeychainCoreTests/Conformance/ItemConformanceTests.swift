import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Apple's item semantics, which every ``KeychainBackend`` must keep (the conformance suite, items part).
@Suite("Backend conformance: items")
struct ItemConformanceTests {
    @Test("Add fills in the defaults Apple fills in", arguments: BackendFactory.all)
    func addDefaults(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let item = try keychain.backend.addPassword("alice", "pw", [.label: .string("Mail")])
        #expect(item.attributes.string(.accessGroup) == "TEAM.com.example.app")
        #expect(item.attributes.string(.accessible) == "ak")
        #expect(item.attributes.bool(.synchronizable) == false)
        #expect(item.attributes[.creationDate]?.dateValue == keychain.clock.now)
        #expect(item.attributes[.modificationDate]?.dateValue == keychain.clock.now)
        let found = try keychain.backend.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp("alice"), returning: .attributes), for: app)
        #expect(
            found == [
                Item(
                    itemClass: .genericPassword, attributes: item.attributes, data: nil,
                    persistentReference: item.persistentReference)
            ])
    }

    @Test("Duplicates follow Apple's primary key, not the other attributes", arguments: BackendFactory.all)
    func duplicates(_ factory: BackendFactory) throws {
        let engine = try factory.open().backend
        try engine.addPassword("alice", "pw")
        // Same account and service: a duplicate whatever the accessibility, label or data.
        #expect(status { try engine.addPassword("alice", "other", [.accessible: .string("ck")]) } == .duplicateItem)
        #expect(status { try engine.addPassword("alice", "other", [.label: .string("x")]) } == .duplicateItem)
        // Another service, another group or a synchronizable copy is another item.
        try engine.addPassword("alice", "pw2", service: "svc2")
        try engine.addPassword("alice", "synced", [.synchronizable: .bool(true)])
        let shared = Caller(
            applicationIdentifier: "TEAM.com.example.app", accessGroups: ["TEAM.com.example.app", "TEAM.shared"])
        try engine.addPassword("alice", "shared", [.accessGroup: .string("TEAM.shared")], caller: shared)
        #expect(try engine.password("alice") == "pw")
        #expect(try engine.password("alice", synchronizable: .synchronizableOnly) == "synced")
        // A missing account counts as empty.
        try engine.add(NewItem(itemClass: .genericPassword, attributes: [.service: .string("svc")]), for: app)
        #expect(status { try engine.addPassword("", "x") } == .duplicateItem)
    }

    @Test("Internet passwords are keyed by all seven attributes", arguments: BackendFactory.all)
    func internetPrimaryKey(_ factory: BackendFactory) throws {
        let engine = try factory.open().backend
        let base: ItemAttributes = [
            .server: .string("example.com"), .account: .string("bob"), .protocol: .string("htps"),
            .port: .integer(443), .path: .string("/"), .authenticationType: .string("form"),
            .securityDomain: .string("realm"),
        ]
        try engine.add(NewItem(itemClass: .internetPassword, attributes: base, data: Data("a".utf8)), for: app)
        #expect(
            status { _ = try engine.add(NewItem(itemClass: .internetPassword, attributes: base), for: app) }
                == .duplicateItem)
        for (key, value) in [
            (AttributeKey.port, AttributeValue.integer(8443)), (.path, .string("/x")), (.protocol, .string("http")),
            (.authenticationType, .string("dflt")), (.securityDomain, .string("other")), (.server, .string("b.com")),
            (.account, .string("carol")),
        ] {
            var attributes = base
            attributes[key] = value
            _ = try engine.add(NewItem(itemClass: .internetPassword, attributes: attributes), for: app)
        }
        let all = try engine.copyMatching(ItemQuery(itemClass: .internetPassword, limit: .all), for: app)
        #expect(all.count == 8)
        let byPort = try engine.copyMatching(
            ItemQuery(itemClass: .internetPassword, attributes: [.port: .integer(8443)], limit: .all, returning: .data),
            for: app)
        #expect(byPort.count == 1 && byPort[0].data == Data())
    }

    @Test("Bad attributes are rejected with the key named", arguments: BackendFactory.all)
    func validation(_ factory: BackendFactory) throws {
        let engine = try factory.open().backend
        func failure(_ attributes: ItemAttributes, _ itemClass: ItemClass = .genericPassword) -> EngineError? {
            do {
                _ = try engine.add(NewItem(itemClass: itemClass, attributes: attributes), for: app)
                return nil
            } catch {
                return error
            }
        }
        let wrongAttribute = failure([.server: .string("x")])
        #expect(wrongAttribute?.code == .noSuchAttribute && wrongAttribute?.message.contains("srvr") == true)
        #expect(failure([.service: .string("x")], .internetPassword)?.code == .noSuchAttribute)
        let wrongType = failure([.account: .integer(3)])
        #expect(wrongType?.code == .param && wrongType?.message.contains("acct") == true)
        #expect(failure([.accessible: .string("sometimes")])?.message.contains("sometimes") == true)
        #expect(failure([.port: .integer(-1)], .internetPassword)?.code == .param)
        let syncedLocal = failure([.synchronizable: .bool(true), .accessible: .string("aku")])
        #expect(syncedLocal?.code == .param && syncedLocal?.message.contains("aku") == true)
        #expect(
            failure([.generic: .data(Data(count: ItemValidator.maximumAttributesByteCount + 1))])?.code == .dataTooLarge
        )
        #expect(
            status {
                _ = try engine.add(
                    NewItem(itemClass: .genericPassword, data: Data(count: ItemValidator.maximumDataByteCount + 1)),
                    for: app)
            }
                == .dataTooLarge)
        #expect(status { _ = try engine.copyMatching(ItemQuery(itemClass: nil), for: app) } == .param)
        #expect(
            status {
                _ = try engine.copyMatching(
                    ItemQuery(itemClass: .genericPassword, attributes: [.synchronizable: .bool(true)]), for: app)
            }
                == .param)
        #expect(
            status { _ = try engine.copyMatching(ItemQuery(itemClass: .genericPassword, limit: .upTo(0)), for: app) }
                == .param)
    }

    @Test("Match limits, sync filter and case-insensitive matching", arguments: BackendFactory.all)
    func queries(_ factory: BackendFactory) throws {
        let engine = try factory.open().backend
        for index in 0..<5 { try engine.addPassword("user\(index)", "pw\(index)", service: "Mail") }
        try engine.addPassword("user9", "synced", service: "Mail", [.synchronizable: .bool(true)])
        let mail = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("Mail")])
        #expect(try engine.copyMatching(mail, for: app).count == 1)
        var all = mail
        all.limit = .all
        #expect(try engine.copyMatching(all, for: app).count == 5)
        all.limit = .upTo(3)
        #expect(try engine.copyMatching(all, for: app).count == 3)
        all.limit = .all
        all.synchronizable = .any
        #expect(try engine.copyMatching(all, for: app).count == 6)
        all.synchronizable = .synchronizableOnly
        all.returning = .attributes
        #expect(try engine.copyMatching(all, for: app).map { $0.attributes.string(.account) } == ["user9"])
        // Attributes come back only when asked for.
        all.returning = .data
        #expect(try engine.copyMatching(all, for: app).map(\.attributes) == [[:]])

        var folded = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("mail"), .account: .string("USER1")],
            returning: .data)
        #expect(status { _ = try engine.copyMatching(folded, for: app) } == .itemNotFound)
        folded.caseInsensitive = true
        #expect(try engine.copyMatching(folded, for: app).first?.data == Data("pw1".utf8))
        // Data is returned only when asked.
        #expect(try engine.copyMatching(mail, for: app)[0].data == nil)
    }

    @Test(
        "Update: all matches, mdat bumps, moves onto an existing key are duplicates, all or nothing",
        arguments: BackendFactory.all)
    func update(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let engine = keychain.backend
        try engine.addPassword("a", "1", service: "s")
        try engine.addPassword("b", "2", service: "s")
        try engine.addPassword("c", "3", service: "t")
        keychain.clock.advance(by: 10)
        let inS = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("s")])
        #expect(try engine.update(inS, with: ItemChanges(attributes: [.label: .string("L")]), for: app) == 2)
        let updated = try engine.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp("a", service: "s"), returning: .attributes),
            for: app)[0]
        #expect(updated.attributes.string(.label) == "L")
        #expect(updated.attributes[.modificationDate]?.dateValue == keychain.clock.now)
        #expect(updated.attributes[.creationDate]?.dateValue == keychain.clock.now.addingTimeInterval(-10))
        #expect(try engine.password("a", service: "s") == "1")

        // Moving both onto service t: "c" is already there for account c, but a and b land on new keys; then
        // moving a onto b's key is a duplicate and changes nothing.
        let moveA = ItemQuery(itemClass: .genericPassword, attributes: genp("a", service: "s"))
        #expect(
            status { _ = try engine.update(moveA, with: ItemChanges(attributes: [.account: .string("b")]), for: app) }
                == .duplicateItem)
        #expect(try engine.password("a", service: "s") == "1")
        // Both matches collide on one key: the whole update rolls back.
        #expect(
            status { _ = try engine.update(inS, with: ItemChanges(attributes: [.account: .string("z")]), for: app) }
                == .duplicateItem)
        #expect(try engine.password("a", service: "s") == "1" && engine.password("b", service: "s") == "2")

        #expect(status { _ = try engine.update(inS, with: ItemChanges(), for: app) } == .param)
        var limited = inS
        limited.limit = .all
        #expect(status { _ = try engine.update(limited, with: ItemChanges(data: Data()), for: app) } == .param)
        var returning = inS
        returning.returning = .data
        #expect(status { _ = try engine.update(returning, with: ItemChanges(data: Data()), for: app) } == .param)
        let nothing = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("none")])
        #expect(status { _ = try engine.update(nothing, with: ItemChanges(data: Data()), for: app) } == .itemNotFound)
        #expect(
            status { _ = try engine.update(inS, with: ItemChanges(attributes: [.server: .string("x")]), for: app) }
                == .noSuchAttribute)

        // Changing accessibility rewraps the key; the item stays readable and keeps its reference.
        let before = try engine.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp("c", service: "t")), for: app)[0]
        _ = try engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: genp("c", service: "t")),
            with: ItemChanges(attributes: [.accessible: .string("dku")], data: Data("new".utf8)), for: app)
        let after = try engine.copyMatching(
            ItemQuery(
                itemClass: .genericPassword, attributes: genp("c", service: "t"), returning: [.data, .attributes]),
            for: app)[0]
        #expect(after.attributes.string(.accessible) == "dku" && after.data == Data("new".utf8))
        #expect(after.persistentReference == before.persistentReference)
    }

    @Test(
        "Delete removes every match; a synchronizable item's tombstone does not block its key",
        arguments: BackendFactory.all)
    func delete(_ factory: BackendFactory) throws {
        let engine = try factory.open().backend
        try engine.addPassword("a", "1")
        try engine.addPassword("b", "2")
        try engine.addPassword("s", "3", [.synchronizable: .bool(true)])
        var limited = ItemQuery(itemClass: .genericPassword)
        limited.limit = .one
        #expect(status { _ = try engine.delete(limited, for: app) } == .param)
        #expect(try engine.delete(ItemQuery(itemClass: .genericPassword), for: app) == 2)
        #expect(status { _ = try engine.delete(ItemQuery(itemClass: .genericPassword), for: app) } == .itemNotFound)
        #expect(try engine.delete(ItemQuery(itemClass: .genericPassword, synchronizable: .any), for: app) == 1)
        #expect(status { _ = try engine.password("s", synchronizable: .synchronizableOnly) } == .itemNotFound)
        // The tombstone does not block a new item with the same key.
        try engine.addPassword("s", "again", [.synchronizable: .bool(true)])
        #expect(try engine.password("s", synchronizable: .synchronizableOnly) == "again")
    }

    @Test(
        "Persistent references identify one item (across reopening), with or without a class",
        arguments: BackendFactory.all)
    func persistentReferences(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let first = try keychain.backend.addPassword("a", "1")
        try keychain.backend.addPassword("b", "2")
        let reopened = try keychain.reopen?() ?? keychain.backend
        let byReference = try reopened.copyMatching(
            ItemQuery(itemClass: nil, persistentReference: first.persistentReference, returning: .data), for: app)
        #expect(byReference.map(\.data) == [Data("1".utf8)])
        #expect(PersistentReference(data: first.persistentReference.data) == first.persistentReference)
        #expect(PersistentReference(data: Data("genp".utf8)) == nil)
        // A reference with the wrong class, or another criterion that does not hold, finds nothing.
        let wrongClass = ItemQuery(itemClass: .internetPassword, persistentReference: first.persistentReference)
        #expect(status { _ = try reopened.copyMatching(wrongClass, for: app) } == .itemNotFound)
        let narrowed = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("b")],
            persistentReference: first.persistentReference)
        #expect(status { _ = try reopened.copyMatching(narrowed, for: app) } == .itemNotFound)
        #expect(
            try reopened.delete(ItemQuery(itemClass: nil, persistentReference: first.persistentReference), for: app)
                == 1)
        #expect(try reopened.password("b") == "2")
    }

    @Test(
        "Access groups: default group, entitlement checks, invisibility of other groups, wildcards",
        arguments: BackendFactory.all)
    func accessGroups(_ factory: BackendFactory) throws {
        let engine = try factory.open().backend
        let writer = Caller(applicationIdentifier: "TEAM.writer", accessGroups: ["TEAM.writer", "TEAM.shared"])
        let reader = Caller(applicationIdentifier: "TEAM.reader", accessGroups: ["TEAM.reader", "TEAM.shared"])
        let wildcard = Caller(applicationIdentifier: "TEAM.any", accessGroups: ["TEAM.*"])
        let stranger = Caller(applicationIdentifier: "OTHER.app")
        try engine.addPassword("private", "p", caller: writer)
        try engine.addPassword("shared", "s", [.accessGroup: .string("TEAM.shared")], caller: writer)
        #expect(
            status { try engine.addPassword("x", "x", [.accessGroup: .string("TEAM.reader")], caller: writer) }
                == .missingEntitlement)
        #expect(try engine.password("shared", caller: reader) == "s")
        #expect(status { _ = try engine.password("private", caller: reader) } == .itemNotFound)
        #expect(
            status {
                _ = try engine.copyMatching(
                    ItemQuery(itemClass: .genericPassword, attributes: [.accessGroup: .string("TEAM.writer")]),
                    for: reader)
            }
                == .missingEntitlement)
        #expect(try engine.password("private", caller: wildcard) == "p")
        #expect(status { _ = try engine.password("shared", caller: stranger) } == .itemNotFound)
        #expect(try engine.password("private", caller: .administrator(defaultGroup: "admin")) == "p")
        #expect(wildcard.defaultGroup == "TEAM.any")
        #expect(
            status { _ = try engine.delete(ItemQuery(itemClass: .genericPassword), for: stranger) } == .itemNotFound)
        #expect(try engine.delete(ItemQuery(itemClass: .genericPassword), for: reader) == 1)
        #expect(try engine.password("private", caller: writer) == "p")
    }

    @Test("Many threads share one backend", arguments: BackendFactory.all)
    func concurrency(_ factory: BackendFactory) async throws {
        let engine = try factory.open().backend
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try engine.addPassword("w\(worker)-\(index)", "v\(index)")
                        #expect(try engine.password("w\(worker)-\(index)") == "v\(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try engine.copyMatching(ItemQuery(itemClass: .genericPassword, limit: .all), for: app).count == 200)
    }
}
