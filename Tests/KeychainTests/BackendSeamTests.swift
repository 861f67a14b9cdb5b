import Foundation
import KeychainCore
import Synchronization
import TestSupport
import Testing

@testable import Keychain

/// A backend that forwards to an engine and records which requirement each call reached, so a test can see what
/// the `Keychain` API asks of its backend.
final class RecordingBackend: KeychainBackend {
    let engine: Engine
    private let recorded = Mutex<[String]>([])

    init() throws {
        engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
    }

    /// The requirements called so far, in order; `clear()` forgets them.
    var calls: [String] { recorded.withLock { $0 } }
    func clear() { recorded.withLock { $0 = [] } }

    private func record(_ name: String) { recorded.withLock { $0.append(name) } }

    func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
        record(request.name)
        return try engine.perform(request, for: caller)
    }
    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        record("observeChanges")
        return try engine.observeChanges(handler)
    }
}

@Suite("Keychain on a backend of the caller's")
struct BackendSeamTests {
    @Test("A keychain given a backend does all its work through it, and shares its lock state")
    func givenBackend() throws {
        let backend = try RecordingBackend()
        let keychain = Keychain(service: "api", backend: backend, identity: try appIdentity())
        #expect(keychain.directory == nil)
        try keychain.set("s3cret", for: "alice")
        #expect(try keychain.get("alice") == "s3cret")
        #expect(
            try backend.engine.copyMatching(
                ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("alice")], returning: .data),
                for: Caller(applicationIdentifier: "TEAM.com.example.app")
            ).first?.data == Data("s3cret".utf8))
        try keychain.setPasscode("1234")
        backend.engine.lock()
        #expect(try keychain.keybagState().isLocked)
        #expect(throws: KeychainError.self) { try keychain.get("alice") }
        #expect(Set(backend.calls).isSubset(of: ["addOrUpdate", "copyMatching", "keybagStatus", "setPasscode"]))
    }

    @Test("set is one add-or-update, whether the key is new or not: no other writer can come between two steps")
    func setIsOneWrite() throws {
        let backend = try RecordingBackend()
        let keychain = Keychain(service: "api", backend: backend, identity: try appIdentity())
        try keychain.set("one", for: "alice")
        #expect(backend.calls == ["addOrUpdate"])
        backend.clear()
        try keychain.accessibility(.afterFirstUnlock).label("Alice").set("two", for: "alice")
        #expect(backend.calls == ["addOrUpdate"])
        let stored = try keychain.items(matching: GenericPassword.Query(account: "alice"))
        #expect(stored.count == 1 && stored.first?.accessibility == .afterFirstUnlock && stored.first?.label == "Alice")
        #expect(try keychain.get("alice") == "two")
    }

    @Test("Typed add-or-update adds, then writes over the item with its key, keeping its reference and creation date")
    func typedAddOrUpdate() throws {
        let backend = try RecordingBackend()
        let keychain = Keychain(service: "api", backend: backend, identity: try appIdentity())
        var item = GenericPassword(account: "bob", service: "mail", label: "Bob")
        item.comment = "first"
        let added = try keychain.addOrUpdate(item, secret: Data("one".utf8))
        item.comment = nil
        item.accessibility = .always
        let updated = try keychain.addOrUpdate(item, secret: Data("two".utf8))
        #expect(backend.calls == ["addOrUpdate", "addOrUpdate"])
        #expect(updated.persistentReference == added.persistentReference)
        #expect(updated.creationDate == added.creationDate)
        #expect(updated.accessibility == .always && updated.comment == "first")
        #expect(try keychain.secret(for: updated) == Data("two".utf8))
    }

    @Test("Keychain.create makes a new keychain and refuses one that exists, changing nothing")
    func create() throws {
        let home = try TemporaryDirectory()
        let created = try Keychain.create(
            service: "api", in: home.keychain, identity: try appIdentity(), passcodeHashing: .minimum)
        #expect(Keychain.exists(in: home.keychain))
        try created.set("kept", for: "alice")
        let refused = #expect(throws: KeychainError.self) {
            _ = try Keychain.create(service: "api", in: home.keychain, identity: try appIdentity())
        }
        #expect(refused?.status == -25296)
        #expect(try created.get("alice") == "kept")
    }
}
