import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainWire

/// A listing in pages (``ItemQuery/startingAfter``): what a backup of a large keychain walks, in the engine and
/// through keychaind's wire.
@Suite("Paged listings")
struct PagedListingTests {
    static func page(after cursor: PersistentReference?, size: Int = 3) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword, synchronizable: .any, limit: .upTo(size), returning: [.attributes],
            startingAfter: cursor)
    }

    /// A page, empty when nothing is left (not found).
    static func items(
        _ copy: (ItemQuery, Caller) throws(EngineError) -> [Item], after cursor: PersistentReference?
    ) throws -> [Item] {
        do throws(EngineError) {
            return try copy(Self.page(after: cursor), app)
        } catch {
            guard error.code == .itemNotFound else { throw error }
            return []
        }
    }

    @Test("Pages after a cursor give every item once, in storage order, and end with not-found")
    func pagesCoverEveryItem() throws {
        let keychain = try TestKeychain()
        for index in 0..<10 {
            _ = try keychain.engine.addPassword("account-\(index)", "secret-\(index)")
        }
        var seen: [String] = []
        var cursor: PersistentReference?
        while true {
            let page = try Self.items(keychain.engine.copyMatching, after: cursor)
            seen += page.compactMap { $0.attributes.string(.account) }
            cursor = page.last?.persistentReference
            if page.count < 3 { break }
        }
        #expect(seen == (0..<10).map { "account-\($0)" })
    }

    @Test("A cursor whose item was deleted since is refused naming it, never read as the listing's end")
    func deletedCursorRefused() throws {
        let keychain = try TestKeychain()
        for index in 0..<6 {
            _ = try keychain.engine.addPassword("account-\(index)", "secret-\(index)")
        }
        let first = try keychain.engine.copyMatching(Self.page(after: nil), for: app)
        let cursor = try #require(first.last?.persistentReference)
        _ = try keychain.engine.delete(
            ItemQuery(itemClass: .genericPassword, persistentReference: cursor), for: app)
        let error = #expect(throws: EngineError.self) {
            try keychain.engine.copyMatching(Self.page(after: cursor), for: app)
        }
        #expect(error?.code == .param)
        #expect(error?.message.contains("\(cursor)") == true, "\(error?.message ?? "")")
    }

    @Test("The cursor crosses keychaind's wire")
    func cursorOnTheWire() throws {
        let cursor = PersistentReference(itemClass: .genericPassword, uuid: UUID())
        let query = Self.page(after: cursor, size: 256)
        let envelope = DaemonEnvelope(caller: app, request: .backend(.copyMatching(query)))
        let decodedEnvelope = try DaemonCoding.decode(DaemonEnvelope.self, from: try DaemonCoding.encode(envelope))
        guard case .backend(.copyMatching(let decoded)) = decodedEnvelope.request else {
            Issue.record("not a copyMatching")
            return
        }
        #expect(decoded == query)
        #expect(decoded.startingAfter == cursor)
    }
}
