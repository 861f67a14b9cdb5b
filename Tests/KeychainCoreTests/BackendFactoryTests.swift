import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

/// `KeychainBackends`: the one place every module gets its backend, and the process's one cache of open engines.
@Suite("The backend factory")
struct BackendFactoryTests {
    private let options = EngineOptions(passcodeCost: .minimum)

    @Test("One engine per keychain directory per process, by any path to it, shared while anyone holds it")
    func sharedEngines() throws {
        let directory = try TemporaryDirectory()
        let first = try KeychainBackends.backend(for: .directory(directory.keychain), options: options)
        let again = try KeychainBackends.backend(
            for: .directory(directory.keychain.appendingPathComponent("../keychain")))
        let link = directory.file("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: directory.keychain)
        let linked = try KeychainBackends.backend(for: .directory(link))
        #expect(first as? Engine === again as? Engine && linked as? Engine === first as? Engine)
        try first.setPasscode("1234", current: nil)
        try first.lock()
        #expect(try again.keybagStatus().isLocked)
        let other = try TemporaryDirectory()
        #expect(try KeychainBackends.backend(for: .directory(other.keychain)) as? Engine !== first as? Engine)
        // In memory, each call is a new keychain.
        let memory = try KeychainBackends.backend(for: .inMemory, options: options)
        #expect(try memory.keybagStatus().keybagID != KeychainBackends.backend(for: .inMemory).keybagStatus().keybagID)
    }

    @Test("Released by every user, the engine closes; the next open is a new engine on the same keychain")
    func weakCache() throws {
        let directory = try TemporaryDirectory()
        var first: (any KeychainBackend)? = try KeychainBackends.backend(for: .directory(directory.keychain))
        let identifier = try first?.keybagStatus().keybagID
        weak let released = first as? Engine
        first = nil
        #expect(released == nil)
        #expect(try KeychainBackends.backend(for: .directory(directory.keychain)).keybagStatus().keybagID == identifier)
    }

    @Test("Creating a keychain refuses an existing one; deleting one removes it, and refuses an empty directory")
    func createAndDelete() throws {
        let directory = try TemporaryDirectory()
        #expect(!KeychainBackends.keychainExists(in: directory.keychain))
        var created: (any KeychainBackend)? = try KeychainBackends.createKeychain(
            in: directory.keychain, options: options)
        #expect(KeychainBackends.keychainExists(in: directory.keychain))
        let identifier = try created?.keybagStatus().keybagID
        try created?.addPassword("a", "kept")
        let refused = #expect(throws: EngineError.self) {
            _ = try KeychainBackends.createKeychain(in: directory.keychain)
        }
        #expect(refused?.code == .duplicateKeychain && refused?.message.contains(directory.keychain.path) == true)
        #expect(try created?.password("a") == "kept")
        created = nil

        try KeychainBackends.deleteKeychain(in: directory.keychain)
        #expect(!KeychainBackends.keychainExists(in: directory.keychain))
        #expect(!FileManager.default.fileExists(atPath: directory.keychain.path))
        let missing = #expect(throws: EngineError.self) { try KeychainBackends.deleteKeychain(in: directory.keychain) }
        #expect(missing?.code == .noSuchKeychain)
        let fresh = try KeychainBackends.createKeychain(in: directory.keychain, options: options)
        #expect(try fresh.keybagStatus().keybagID != identifier)
        #expect(status { _ = try fresh.password("a") } == .itemNotFound)
    }

    @Test("A directory is served by the embedded engine, a socket by the process's one daemon client")
    func kinds() throws {
        let directory = try TemporaryDirectory()
        #expect(try KeychainBackends.backend(for: .directory(directory.keychain)) is Engine)
        let socket = directory.url.appendingPathComponent("keychaind.sock").path
        let first = try KeychainBackends.backend(for: .daemon(socketPath: socket))
        let second = try KeychainBackends.backend(for: .daemon(socketPath: socket))
        #expect(first is DaemonClient)
        #expect((first as? DaemonClient) === (second as? DaemonClient))
    }
}
