import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

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
    static let all: [BackendFactory] = [.onDisk, .inMemory] + (getuid() == 0 ? [.throughDaemon] : [])

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

    /// A real keychaind, through its client. The tests name their callers, which the daemon honours only for
    /// root (everyone else's identity is the kernel's word), so the suite runs on it only as root (as CI does);
    /// `reopen` restarts the daemon, a fresh lock state on the same files. The daemon reads ``clock`` from a
    /// file (`--clock`).
    static let throughDaemon = BackendFactory(testDescription: "through keychaind") {
        let daemon = try DaemonProcess(readsClockFile: true)
        let clock = TestClock(file: daemon.clockFile)
        // The client keeps the daemon (and the clock's directory) alive as long as a test uses it.
        let client = DaemonClient(socketPath: daemon.socketPath, retaining: daemon)
        return OpenBackend(
            backend: client, clock: clock,
            reopen: {
                try daemon.restart()
                return DaemonClient(socketPath: daemon.socketPath, retaining: daemon)
            })
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
