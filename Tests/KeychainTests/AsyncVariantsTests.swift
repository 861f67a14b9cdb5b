import Foundation
import Keychain
import TestSupport
import Testing

/// Every blocking call has its `async` variant (issue 22, §4): creating and deleting a keychain, `addOrUpdate` and
/// `verify`, with the same results and errors as the blocking calls.
@Suite("Async variants")
struct AsyncVariantsTests {
    @Test("create, addOrUpdate, verify and delete, awaited")
    func awaited() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url.appendingPathComponent("keychain", isDirectory: true)
        let keychain = try await Keychain.create(service: "async", in: directory)
        await #expect(throws: KeychainError.self) { try await Keychain.create(service: "async", in: directory) }
        let item = GenericPassword(account: "alice", service: "async")
        try await keychain.addOrUpdate(item, secret: Data("one".utf8))
        let updated = try await keychain.addOrUpdate(item, secret: Data("two".utf8))
        #expect(try await keychain.secret(for: updated) == Data("two".utf8))
        #expect(try await keychain.items(matching: GenericPassword.Query(service: "async")).count == 1)
        let verification = try await keychain.verify()
        #expect(verification.isSound)
        #expect(verification.itemCount == 1)
        try await Keychain.delete(in: directory)
        #expect(!Keychain.exists(in: directory))
        await #expect(throws: KeychainError.self) { try await Keychain.delete(in: directory) }
    }
}
