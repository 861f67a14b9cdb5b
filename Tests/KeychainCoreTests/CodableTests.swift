import Foundation
import Testing

@testable import KeychainCore

/// Every request, result and error of ``KeychainBackend`` is a `Codable` value, so a daemon client can send it over a
/// socket: each must come back from an encoder and a decoder exactly as it was.
@Suite("Backend values cross a socket: Codable round trips")
struct CodableTests {
    /// A text and a binary form: JSON, and a binary property list.
    enum Form: String, CaseIterable, CustomTestStringConvertible {
        case json, binaryPropertyList

        var testDescription: String { rawValue }

        func roundTrip<Value: Codable & Equatable>(_ value: Value) throws -> Value {
            switch self {
            case .json: return try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
            case .binaryPropertyList:
                let encoder = PropertyListEncoder()
                encoder.outputFormat = .binary
                // A property list's top level is a container: the value travels inside an array.
                return try PropertyListDecoder().decode([Value].self, from: encoder.encode([value]))[0]
            }
        }
    }

    /// Attributes of every value type, text and bytes among them.
    private let attributes: ItemAttributes = [
        .account: .string("alice ✓"), .generic: .data(Data([0, 1, 254, 255])), .creator: .integer(0x6170_706C),
        .creationDate: .date(Date(timeIntervalSince1970: 1_800_000_000.25)), .isInvisible: .bool(true),
        .synchronizable: .bool(false), .accessGroup: .string("TEAM.group"),
    ]

    private let reference = PersistentReference(itemClass: .internetPassword, uuid: UUID())

    @Test("Requests: new items, batches, queries and changes", arguments: Form.allCases)
    func requests(_ form: Form) throws {
        let item = NewItem(
            itemClass: .genericPassword, attributes: attributes, data: Data("s3cret".utf8),
            allowsThisDeviceOnlySynchronizable: true)
        #expect(try form.roundTrip(item) == item)
        #expect(
            try form.roundTrip([item, NewItem(itemClass: .internetPassword)]) == [
                item, NewItem(itemClass: .internetPassword),
            ])
        for synchronizable in [SynchronizableFilter.localOnly, .synchronizableOnly, .any] {
            for limit in [MatchLimit?.none, .one, .all, .upTo(7)] {
                let query = ItemQuery(
                    itemClass: .genericPassword, attributes: attributes, synchronizable: synchronizable,
                    persistentReference: reference, limit: limit,
                    returning: [.data, .attributes, .persistentReference],
                    caseInsensitive: true)
                #expect(try form.roundTrip(query) == query)
            }
        }
        #expect(try form.roundTrip(ItemQuery(itemClass: nil)) == ItemQuery(itemClass: nil))
        let changes = ItemChanges(attributes: attributes, data: Data(), allowsThisDeviceOnlySynchronizable: true)
        #expect(try form.roundTrip(changes) == changes)
        #expect(try form.roundTrip(ItemChanges()) == ItemChanges())
        let caller = Caller(applicationIdentifier: "TEAM.app", accessGroups: ["TEAM.app", "TEAM.*"])
        #expect(try form.roundTrip(caller) == caller)
        #expect(try form.roundTrip(FileKeyClass.allCases) == FileKeyClass.allCases)
    }

    @Test("Results: items, references, keybag states, verification reports", arguments: Form.allCases)
    func results(_ form: Form) throws {
        let item = Item(itemClass: .internetPassword, attributes: attributes, data: nil, persistentReference: reference)
        #expect(try form.roundTrip(item) == item)
        var withData = item
        withData.data = Data(count: 3)
        #expect(try form.roundTrip([withData, item]) == [withData, item])
        #expect(try form.roundTrip(reference) == reference)
        let status = KeybagStatus(
            keybagID: UUID(), hasPasscode: true, isLocked: false, hasBeenUnlocked: true, failedAttempts: 5,
            retryAfter: Date(timeIntervalSince1970: 1_800_000_060), eraseAfter: 10)
        #expect(try form.roundTrip(status) == status)
        var unset = status
        unset.retryAfter = nil
        unset.eraseAfter = nil
        #expect(try form.roundTrip(unset) == unset)
        var report = VerificationReport()
        report.itemCount = 3
        report.changeCount = 4
        report.lockedItemCount = 1
        report.problems = ["the change log ends early"]
        report.damagedItems = [
            .init(persistentReference: reference, rowID: 9, problem: "fails authentication"),
            .init(persistentReference: nil, rowID: nil, problem: "missing"),
        ]
        #expect(try form.roundTrip(report) == report)
    }

    @Test("Errors: every status, with its message", arguments: Form.allCases)
    func errors(_ form: Form) throws {
        for code in EngineError.Code.allCases {
            let error = EngineError(code, "the attribute \"acct\" is wrong: \(code)")
            let decoded = try form.roundTrip(error)
            #expect(decoded == error && decoded.status == code.rawValue)
        }
    }

    @Test("A status the receiver does not know is refused, not guessed")
    func unknownStatus() throws {
        let json = Data(#"{"code": -1, "message": "from a newer daemon"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EngineError.self, from: json) }
        let known = Data(#"{"code": -25300, "message": "no item"}"#.utf8)
        #expect(try JSONDecoder().decode(EngineError.self, from: known) == EngineError(.itemNotFound, "no item"))
    }
}
