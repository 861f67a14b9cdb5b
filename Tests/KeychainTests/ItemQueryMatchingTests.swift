import Foundation
import KeychainCore
import Testing

@Suite("ItemQuery.matches(_:for:) agrees with the engine's search")
struct ItemQueryMatchingTests {
    private let caller = Caller(applicationIdentifier: "app", accessGroups: ["app", "shared"])

    private func item(_ attributes: ItemAttributes, _ itemClass: ItemClass = .genericPassword) -> Item {
        Item(
            itemClass: itemClass,
            attributes: ItemAttributes([.accessGroup: .string("app"), .synchronizable: .bool(false)])
                .merging(attributes),
            data: nil, persistentReference: PersistentReference(itemClass: itemClass, uuid: UUID()))
    }

    @Test("Class, attributes, synchronizable filter and access groups decide")
    func rules() {
        let query = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("s")])
        #expect(query.matches(item([.service: .string("s")]), for: caller))
        #expect(!query.matches(item([.service: .string("t")]), for: caller))
        #expect(!query.matches(item([.server: .string("s")], .internetPassword), for: caller))
        #expect(!query.matches(item([.service: .string("s"), .synchronizable: .bool(true)]), for: caller))
        var any = query
        any.synchronizable = .any
        #expect(any.matches(item([.service: .string("s"), .synchronizable: .bool(true)]), for: caller))
        #expect(!query.matches(item([.service: .string("s"), .accessGroup: .string("other")]), for: caller))
        let grouped = ItemQuery(itemClass: .genericPassword, attributes: [.accessGroup: .string("shared")])
        #expect(!grouped.matches(item([:]), for: caller))
        #expect(grouped.matches(item([.accessGroup: .string("shared")]), for: caller))
    }

    @Test("A missing primary-key attribute counts as empty; case-insensitive text; references")
    func details() {
        let empty = ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("")])
        #expect(empty.matches(item([:]), for: caller))
        var folded = ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("ALICE")])
        #expect(!folded.matches(item([.account: .string("alice")]), for: caller))
        folded.caseInsensitive = true
        #expect(folded.matches(item([.account: .string("alice")]), for: caller))
        let target = item([:])
        let byReference = ItemQuery(itemClass: nil, persistentReference: target.persistentReference)
        #expect(byReference.matches(target, for: caller))
        #expect(!byReference.matches(item([:]), for: caller))
        #expect(!ItemQuery(itemClass: nil).matches(target, for: caller))
    }
}
