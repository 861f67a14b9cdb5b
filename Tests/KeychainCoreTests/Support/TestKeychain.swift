import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    /// A file the clock writes its time to, for a daemon started with `--clock FILE`.
    private let file: URL?

    init(file: URL? = nil) {
        self.file = file
        publish()
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
        publish()
    }

    private func publish() {
        guard let file else { return }
        try? Data(String(now.timeIntervalSince1970).utf8).write(to: file)
    }
}

/// A keychain in its own temporary directory, with the cheapest Argon2id cost and a hand-moved clock.
struct TestKeychain {
    let directory: TemporaryDirectory
    let clock: TestClock
    let engine: Engine

    init() throws {
        directory = try TemporaryDirectory()
        clock = TestClock()
        engine = try Self.open(directory, clock)
    }

    /// Opens the same keychain again, as a restarted process would.
    func reopen() throws -> Engine {
        try Self.open(directory, clock)
    }

    static func open(_ directory: TemporaryDirectory, _ clock: TestClock) throws -> Engine {
        try Engine(
            storage: .directory(directory.keychain),
            options: EngineOptions(passcodeCost: .minimum, now: { clock.now }))
    }
}

let app = Caller(applicationIdentifier: "TEAM.com.example.app", accessGroups: ["TEAM.com.example.app"])

/// A generic password's attributes.
func genp(_ account: String, service: String = "svc", _ extra: ItemAttributes = [:]) -> ItemAttributes {
    ItemAttributes([.account: .string(account), .service: .string(service)]).merging(extra)
}

extension KeychainBackend {
    /// Adds a generic password.
    @discardableResult
    func addPassword(
        _ account: String, _ secret: String, service: String = "svc", _ extra: ItemAttributes = [:],
        caller: Caller = app
    ) throws -> Item {
        try add(
            NewItem(
                itemClass: .genericPassword, attributes: genp(account, service: service, extra), data: Data(secret.utf8)
            ),
            for: caller)
    }

    /// The secret of a generic password, as text.
    func password(
        _ account: String, service: String = "svc", synchronizable: SynchronizableFilter = .localOnly,
        caller: Caller = app
    ) throws -> String {
        let items = try copyMatching(
            ItemQuery(
                itemClass: .genericPassword, attributes: genp(account, service: service),
                synchronizable: synchronizable, returning: .data),
            for: caller)
        return String(decoding: items[0].data ?? Data(), as: UTF8.self)
    }
}

/// The status of an operation that is expected to fail.
func status(_ body: () throws -> Void) -> EngineError.Code? {
    do {
        try body()
        return nil
    } catch let error as EngineError {
        return error.code
    } catch {
        return .internalComponent
    }
}
