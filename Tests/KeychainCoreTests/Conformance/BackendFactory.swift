import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// One kind of ``KeychainBackend`` the conformance suite runs on: how to open a fresh, empty keychain of that kind
/// with a hand-moved clock and the cheapest Argon2id cost.
///
/// To run the suite on another kind (the keychain daemon's client), add one factory to ``all``.
struct BackendFactory: Sendable, CustomTestStringConvertible {
    /// The kind's name, as test reports show it.
    let testDescription: String
    /// Opens a fresh, empty keychain.
    let open: @Sendable () throws -> OpenBackend

    /// Every kind the suite runs on.
    static let all: [BackendFactory] = [.onDisk, .inMemory]

    /// The embedded engine on a keychain directory of its own.
    static let onDisk = BackendFactory(testDescription: "on disk") {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        let open: @Sendable () throws -> any KeychainBackend = {
            try Engine(
                storage: .directory(directory.keychain),
                options: EngineOptions(passcodeCost: .minimum, now: { clock.now }))
        }
        return OpenBackend(backend: try open(), clock: clock, reopen: open)
    }

    /// The embedded engine in memory.
    static let inMemory = BackendFactory(testDescription: "in memory") {
        let clock = TestClock()
        let engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum, now: { clock.now }))
        return OpenBackend(backend: engine, clock: clock, reopen: nil)
    }
}

/// A keychain a factory opened for one test.
struct OpenBackend: Sendable {
    /// The backend under test.
    let backend: any KeychainBackend
    /// The clock its backend reads (passcode waits, dates).
    let clock: TestClock
    /// Opens the same keychain again, as a restarted process would; `nil` when the kind keeps nothing across
    /// opens (in memory). Tests of what survives a restart, or of a fresh open's lock state, need it.
    let reopen: (@Sendable () throws -> any KeychainBackend)?
}
