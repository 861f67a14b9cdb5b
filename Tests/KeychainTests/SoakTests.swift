import Foundation
import Testing

@testable import Keychain

/// Long concurrency loops over the whole API, run by `make soak` (KEYCHAIN_SOAK=1) before resolving the issue.
@Suite(
    "Soak: the Keychain API under sustained concurrent use",
    .enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_SOAK"] != nil), .timeLimit(.minutes(10)))
struct SoakTests {
    @Test("Writers, readers, a migrator, a locker and a change consumer at once, then every invariant holds")
    func everythingAtOnce() async throws {
        let fixture = try TestKeychain()
        let keychain = fixture.keychain.accessibility(.afterFirstUnlock)
        try await keychain.setPasscode("1234")
        let changes = try keychain.changes()
        let consumer = Task {
            var seen = 0
            for await _ in changes { seen += 1 }
            return seen
        }
        let rounds = 2_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let own = try fixture.reopened().accessibility(.afterFirstUnlock)
                    for round in 0..<rounds {
                        let key = "w\(writer)-\(round % 100)"
                        try await own.set(round, for: key)
                        #expect(try await own.get(key, as: Int.self) != nil)
                        if round % 7 == 0 { try await own.remove(key) }
                    }
                }
            }
            group.addTask {
                for round in 0..<(rounds / 20) {
                    let target: Accessibility = round % 2 == 0 ? .always : .afterFirstUnlock
                    _ = try await keychain.migrateAccessibility(of: GenericPassword.Query(service: "api"), to: target)
                }
            }
            group.addTask {
                for _ in 0..<(rounds / 20) {
                    try await keychain.lock()
                    try await keychain.unlock(passcode: "1234")
                }
            }
            try await group.waitForAll()
        }
        consumer.cancel()
        #expect(await consumer.value > 0)
        let keys = try await keychain.allKeys()
        for key in keys { #expect(try await keychain.get(key, as: Int.self) != nil) }
        #expect(keys.count <= 8 * 100)
    }
}
