import Foundation
import TestSupport
import Testing

@testable import Keychain

/// Where a test keychain lives.
enum Storage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory, directory

    var testDescription: String { rawValue }
}

/// The identity tests run as: one app with its own group and a shared group.
func appIdentity() throws -> ApplicationIdentity {
    try ApplicationIdentity(
        applicationIdentifier: "TEAM.com.example.app", accessGroups: ["TEAM.com.example.app", "TEAM.shared"])
}

/// Another app, entitled only to its own group.
func otherIdentity() throws -> ApplicationIdentity {
    try ApplicationIdentity(applicationIdentifier: "TEAM.com.example.other")
}

/// A keychain for one test: in memory, or in its own temporary directory (kept alive by the returned fixture).
struct TestKeychain {
    let keychain: Keychain
    let directory: TemporaryDirectory?

    init(_ storage: Storage = .directory, service: String = "api", identity: ApplicationIdentity? = nil) throws {
        let identity = try identity ?? appIdentity()
        switch storage {
        case .inMemory:
            directory = nil
            keychain = Keychain.inMemory(service: service, identity: identity)
        case .directory:
            let directory = try TemporaryDirectory()
            self.directory = directory
            keychain = Keychain(
                service: service, directory: directory.keychain, identity: identity, passcodeHashing: .minimum)
        }
    }

    /// Another value on the same keychain, as another part of the program would open it.
    func reopened(service: String = "api", identity: ApplicationIdentity? = nil) throws -> Keychain {
        guard let directory else { return keychain.service(service) }
        return Keychain(
            service: service, directory: directory.keychain, identity: try identity ?? appIdentity(),
            passcodeHashing: .minimum)
    }
}

/// The `KeychainError` a throwing call threw, or `nil` when it returned. Any other error is a test failure: the
/// API throws `KeychainError` only.
func keychainError<T>(
    _ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> KeychainError? {
    do {
        _ = try body()
        return nil
    } catch let error as KeychainError {
        return error
    } catch {
        Issue.record("not a KeychainError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
