import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// File keys bound to an access group (what keychaind gives every protected file): they open only for a caller
/// entitled to the group; keys bound to none (today's and every earlier file) keep opening, through keychaind for
/// the group it names for them.
@Suite("File keys bound to an access group")
struct FileKeyBindingTests {
    static let appA = Caller(applicationIdentifier: "TEAMA.a")
    static let appB = Caller(applicationIdentifier: "TEAMB.b", accessGroups: ["TEAMB.b", "TEAM.shared"])
    static let unregistered = Caller(applicationIdentifier: "swift-keychain.unregistered")
    static let context: [UInt8] = Array("header fields".utf8)

    private func engine() throws -> Engine {
        try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
    }

    private func unwrap(
        _ engine: Engine, _ wrapped: Data, _ fileClass: FileKeyClass, for caller: Caller
    ) -> EngineError.Code? {
        status {
            _ = try engine.unwrapFileKey(
                wrapped, for: fileClass, context: Self.context, caller: caller,
                unboundGroup: Self.unregistered.defaultGroup)
        }
    }

    @Test(
        "Bound to a group: its callers open it, others are refused by name, the wildcard admin opens it",
        arguments: FileKeyClass.allCases)
    func bound(_ fileClass: FileKeyClass) throws {
        let engine = try engine()
        let key = try SecretKey.random()
        let wrapped = try engine.wrapFileKey(key, for: fileClass, context: Self.context, boundTo: "TEAM.shared")
        #expect(unwrap(engine, wrapped, fileClass, for: Self.appB) == nil)
        #expect(unwrap(engine, wrapped, fileClass, for: Self.appA) == .missingEntitlement)
        #expect(unwrap(engine, wrapped, fileClass, for: Self.unregistered) == .missingEntitlement)
        #expect(unwrap(engine, wrapped, fileClass, for: .administrator(defaultGroup: "x")) == nil)
        let opened = try engine.unwrapFileKey(wrapped, for: fileClass, context: Self.context)
        #expect(opened.withUnsafeBytes { Data($0) } == key.withUnsafeBytes { Data($0) })
        // The group's hash is bound: put another group's hash in its place and the key does not open, for anyone.
        let other = try engine.wrapFileKey(key, for: fileClass, context: Self.context, boundTo: "TEAMA.a")
        var swapped = wrapped
        swapped.replaceSubrange(1..<17, with: other[1..<17])
        #expect(unwrap(engine, swapped, fileClass, for: Self.appA) == .decode)
        #expect(status { _ = try engine.unwrapFileKey(swapped, for: fileClass, context: Self.context) } == .decode)
    }

    @Test(
        "Bound to none (today's form, byte for byte as before): opens embedded, and for callers of the unbound group only",
        arguments: FileKeyClass.allCases)
    func unbound(_ fileClass: FileKeyClass) throws {
        let engine = try engine()
        let wrapped = try engine.wrapFileKey(try SecretKey.random(), for: fileClass, context: Self.context)
        #expect(wrapped.count == (fileClass == .classB ? 104 : 72))
        #expect(unwrap(engine, wrapped, fileClass, for: Self.unregistered) == nil)
        #expect(unwrap(engine, wrapped, fileClass, for: Self.appA) == .missingEntitlement)
        #expect(unwrap(engine, wrapped, fileClass, for: .administrator(defaultGroup: "x")) == nil)
        _ = try engine.unwrapFileKey(wrapped, for: fileClass, context: Self.context)
        // A length of neither form is damage, named.
        #expect(
            status { _ = try engine.unwrapFileKey(wrapped + [0], for: fileClass, context: Self.context) } == .decode)
    }
}
