import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Keychain

@Suite("Concurrency: one keychain from many tasks and threads, no lock of the caller's own")
struct ConcurrencyTests {
    @Test("Hundreds of concurrent async set and get on one keychain", arguments: Storage.allCases)
    func manyTasks(storage: Storage) async throws {
        let keychain = try TestKeychain(storage).keychain
        let count = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let key = "key-\(index % 50)"
                    try await keychain.set("value-\(index)", for: key)
                    let read = try await keychain.get(key)
                    // Another task may have written the same key since: any value written to it is fine, nil is not.
                    #expect(read?.hasPrefix("value-") == true)
                    try await keychain.set(index, for: "own-\(index)")
                    #expect(try await keychain.get("own-\(index)", as: Int.self) == index)
                }
            }
            try await group.waitForAll()
        }
        let keys = try await keychain.allKeys()
        #expect(keys.count == 50 + count)
        for index in 0..<count { #expect(try await keychain.get("own-\(index)", as: Int.self) == index) }
    }

    @Test("Many threads use the synchronous API on one keychain, and on values opened separately")
    func manyThreads() throws {
        let fixture = try TestKeychain()
        let keychains = [fixture.keychain, try fixture.reopened()]
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let keychain = keychains[index % 2]
            do {
                try keychain.set(Data([UInt8(index % 256)]), for: "thread-\(index)")
                guard try keychain.get("thread-\(index)", as: Data.self) == Data([UInt8(index % 256)]) else {
                    failures.record("thread \(index) read another value")
                    return
                }
                if index % 3 == 0 { try keychain.remove("thread-\(index)") }
            } catch {
                failures.record("thread \(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try fixture.keychain.allKeys().count == 200 - 67)
    }

    @Test("Concurrent writers of one key never lose it: set is an upsert that settles races")
    func racingUpserts() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index % 4 == 3 {
                        try await keychain.remove("contended")
                    } else {
                        try await keychain.set("v\(index)", for: "contended")
                    }
                }
            }
            try await group.waitForAll()
        }
        try await keychain.set("last", for: "contended")
        #expect(try await keychain.get("contended") == "last")
        #expect(try await keychain.items(matching: GenericPassword.Query(account: "contended")).count == 1)
    }

    @Test("async calls do not run on the calling thread")
    func offloaded() async throws {
        let keychain = try TestKeychain(.inMemory).keychain
        let marker = DispatchSpecificKey<String>()
        keychain.connection.queue.setSpecific(key: marker, value: "keychain queue")
        let seen = try await keychain.offload { _ throws(KeychainError) in DispatchQueue.getSpecific(key: marker) }
        #expect(seen == "keychain queue")
        #expect(DispatchQueue.getSpecific(key: marker) == nil)
    }
}

/// Failures collected from many threads.
final class Failures: Sendable {
    private let messages = Mutex<[String]>([])

    func record(_ message: String) { messages.withLock { $0.append(message) } }

    var all: [String] { messages.withLock { $0 } }
}
