import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainKeys

/// The key layer keeps stored keys read between uses (``PreparedKeyCache``): each test tries to make a parsed
/// private key outlive what it promises it never outlives — the class key that opened it, its item — or to make a
/// use reach a kept key the keychain would refuse.
@Suite("Stored keys kept read between uses")
struct PreparedKeyCacheTests {
    private let directory: TemporaryDirectory
    private let engine: Engine
    private let caller = Caller(applicationIdentifier: "TEAM.cache")
    private let sign = KeyUse(
        .sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: Data("kept key".utf8))

    init() throws {
        KeyUsePerformer.install()
        directory = try TemporaryDirectory()
        engine = try Engine(storage: .directory(directory.keychain), options: EngineOptions(passcodeCost: .minimum))
        try engine.setPasscode("1234", current: nil)
    }

    /// A stored P-256 private key (extractable, so the test can name it by its bytes), its query, bytes and
    /// attributes.
    private func storedKey(_ tag: String) throws -> (query: ItemQuery, data: Data, keyClass: Int64, keyType: Int64) {
        let generation = KeyGeneration(
            keyType: CredentialAttributes.ellipticCurveType, sizeInBits: 256,
            privateKey: NewItem(
                itemClass: .key, attributes: [.applicationTag: .data(Data(tag.utf8)), .isExtractable: .bool(true)]),
            publicKey: nil)
        _ = try engine.generateKey(generation, for: caller)
        let query = ItemQuery(itemClass: .key, attributes: [.applicationTag: .data(Data(tag.utf8))])
        var reading = query
        reading.returning = [.attributes, .data]
        let item = try #require(try engine.copyMatching(reading, for: caller).first)
        let data = try #require(item.data)
        guard case .integer(let keyClass) = item.attributes[.keyClass],
            case .integer(let keyType) = item.attributes[.type]
        else { throw EngineError(.param, "the stored key has no class or type") }
        return (query, data, keyClass, keyType)
    }

    /// Uses the key until it is seen kept: other tests in this process lock keychains and delete keys, and each
    /// of those drops every kept key, at any moment.
    private func useUntilKept(_ key: (query: ItemQuery, data: Data, keyClass: Int64, keyType: Int64)) throws -> Bool {
        for _ in 0..<100 {
            _ = try engine.useKey(key.query, sign, for: caller)
            if try isKept(key) { return true }
        }
        return false
    }

    private func isKept(_ key: (query: ItemQuery, data: Data, keyClass: Int64, keyType: Int64)) throws -> Bool {
        try PreparedKeyCache.shared.holds(key.data, keyClass: key.keyClass, keyType: key.keyType)
    }

    @Test("A use keeps the key; locking the keychain drops it, and the locked key is refused, not served from memory")
    func lockDropsKeptKeys() throws {
        let key = try storedKey("lock")
        #expect(try useUntilKept(key), "the use kept the key read")
        engine.lock()
        #expect(try !isKept(key), "a parsed private key outlived the lock")
        #expect(throws: EngineError.self) { try engine.useKey(key.query, sign, for: caller) }
        #expect(try !isKept(key))
    }

    @Test("Deleting or changing a key's item drops the key kept from it")
    func deleteAndUpdateDropKeptKeys() throws {
        let changed = try storedKey("changed")
        #expect(try useUntilKept(changed))
        _ = try engine.update(changed.query, with: ItemChanges(attributes: [.label: .string("renamed")]), for: caller)
        #expect(try !isKept(changed), "a key kept from an item outlived the item's change")

        let deleted = try storedKey("deleted")
        #expect(try useUntilKept(deleted))
        _ = try engine.delete(deleted.query, for: caller)
        #expect(try !isKept(deleted), "a deleted key stayed parsed in memory")
        #expect(throws: EngineError.self) { try engine.useKey(deleted.query, sign, for: caller) }
    }

    @Test("A lock while a use runs — between its search and the key layer keeping the key — leaves nothing kept")
    func lockDuringAUseLeavesNothingKept() throws {
        let key = try storedKey("race")
        var reading = key.query
        reading.returning = [.attributes, .data]
        let attributes = try #require(try engine.copyMatching(reading, for: caller).first).attributes
        try KeyOperations.honoringForgets { () throws(EngineError) in
            // The search has opened the item; now the keychain locks, then the key layer reads and keeps the key.
            KeyOperations.forgetPreparedKeys()
            _ = try KeyUsePerformer().perform(sign, key: key.data, attributes: attributes)
        }
        #expect(try !isKept(key), "a key read after the lock stayed kept")
    }

    @Test("Keys are kept by their bytes: two items with different keys never share one, and the count is bounded")
    func keptByBytesAndBounded() throws {
        let first = try storedKey("first")
        let second = try storedKey("second")
        let firstSignature = try engine.useKey(first.query, sign, for: caller)
        let secondSignature = try engine.useKey(second.query, sign, for: caller)
        let firstPublic = try AsymmetricKey.importing(first.data, kind: .ec(.p256), isPrivate: true).publicKey()
        let secondPublic = try AsymmetricKey.importing(second.data, kind: .ec(.p256), isPrivate: true).publicKey()
        let scheme = SignatureScheme.ecdsaX962(.sha256, isDigest: false)
        #expect(try firstPublic.verify(firstSignature, of: sign.input, scheme: scheme))
        #expect(try secondPublic.verify(secondSignature, of: sign.input, scheme: scheme))
        #expect(try !secondPublic.verify(firstSignature, of: sign.input, scheme: scheme))
        for index in 0..<(PreparedKeyCache.capacity + 4) {
            let key = try storedKey("bound.\(index)")
            _ = try engine.useKey(key.query, sign, for: caller)
        }
        #expect(PreparedKeyCache.shared.count <= PreparedKeyCache.capacity)
    }
}
