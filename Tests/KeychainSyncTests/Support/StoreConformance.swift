import Foundation
import KeychainSync
import Synchronization
import Testing

/// What every ``SyncStore`` promises, checked on any store: FolderStoreConformanceTests and
/// PostgresStoreConformanceTests run each check on their store.
enum StoreConformance {
    static func putIfAbsentNeverOverwrites(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        let other = try fixture.open()
        #expect(try store.putIfAbsent("devices/a/log/1", [1, 2, 3]))
        #expect(try !store.putIfAbsent("devices/a/log/1", [9, 9]))
        #expect(try !other.putIfAbsent("devices/a/log/1", []))
        #expect(try store.get("devices/a/log/1") == [1, 2, 3])
        #expect(try other.get("devices/a/log/1") == [1, 2, 3])
    }

    /// Many threads on several instances put one name at once, round after round: exactly one wins each round, and
    /// the record holds the winner's bytes.
    static func concurrentPutIfAbsentHasOneWinner(_ fixture: some StoreFixture) throws {
        let stores = try (0..<4).map { _ in try fixture.open() }
        for round in 0..<10 {
            let name = "race/\(round)"
            let winners = Mutex<[Int]>([])
            let failures = Mutex<[String]>([])
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for writer in 0..<16 {
                let store = stores[writer % stores.count]
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    start.wait()
                    do {
                        if try store.putIfAbsent(name, Array("writer \(writer)".utf8)) {
                            winners.withLock { $0.append(writer) }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            for _ in 0..<16 { start.signal() }
            group.wait()
            #expect(failures.withLock { $0 } == [])
            let won = winners.withLock { $0 }
            #expect(won.count == 1, "round \(round): winners \(won)")
            if let winner = won.first {
                #expect(try stores[0].get(name) == Array("writer \(winner)".utf8))
            }
        }
    }

    static func listIsOrderedByBytesAndFiltersByPrefix(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        let names = ["b/a", "a/c", "ab", "a", "a_b", "a/b/c", "a.b", "a/b", "a-b", "0", "a/b/c/d/e"]
        for name in names { #expect(try store.putIfAbsent(name, Array(name.utf8))) }
        // Bytes: - (2d) . (2e) / (2f) 0-9 (30-39) _ (5f) a-z (61-7a).
        #expect(
            try store.list(prefix: "") == [
                "0", "a", "a-b", "a.b", "a/b", "a/b/c", "a/b/c/d/e", "a/c", "a_b", "ab", "b/a",
            ])
        #expect(try store.list(prefix: "a/") == ["a/b", "a/b/c", "a/b/c/d/e", "a/c"])
        #expect(try store.list(prefix: "a/b") == ["a/b", "a/b/c", "a/b/c/d/e"])
        #expect(try store.list(prefix: "a/b/") == ["a/b/c", "a/b/c/d/e"])
        #expect(try store.list(prefix: "a") == ["a", "a-b", "a.b", "a/b", "a/b/c", "a/b/c/d/e", "a/c", "a_b", "ab"])
        #expect(try store.list(prefix: "b") == ["b/a"])
        #expect(try store.list(prefix: "zz") == [])
        #expect(try store.list(prefix: "a/b/c/d/e") == ["a/b/c/d/e"])
        #expect(try fixture.open().list(prefix: "a/c") == ["a/c"])
    }

    static func invalidNamesAreRejectedByName(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        let invalid = [
            "", "/a", "a/", "a//b", "Upper", "a b", ".", "..", "a/../b", "a/./b", "caf\u{e9}", "a\u{0}b", "x';drop",
            "a\\b", String(repeating: "a", count: 256),
        ]
        for name in invalid {
            for verb in ["put", "get", "delete"] {
                do {
                    switch verb {
                    case "put": _ = try store.putIfAbsent(name, [1])
                    case "get": _ = try store.get(name)
                    default: try store.delete(name)
                    }
                    Issue.record("\(verb) accepted the name \(name.debugDescription)")
                } catch {
                    #expect(error.kind == .invalidName, "\(verb) \(name.debugDescription): \(error)")
                    // Named as it is, only a backslash escaped; a control character or non-ASCII one as \u{…}.
                    let shown =
                        name.isEmpty
                        ? "empty"
                        : name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                            of: "\u{0}", with: "\\u{0}"
                        )
                        .replacingOccurrences(of: "\u{e9}", with: "\\u{e9}")
                    #expect(error.message.contains(shown), "\(error.message) does not name \(name)")
                }
            }
        }
        for prefix in ["A", "a b", "caf\u{e9}", "x;", String(repeating: "a", count: 256)] {
            #expect(throws: SyncStoreError.self) { try store.list(prefix: prefix) }
            do {
                _ = try store.list(prefix: prefix)
            } catch {
                #expect(error.kind == .invalidName)
            }
        }
        // The longest valid name is taken; nothing invalid was stored.
        let longest = String(repeating: "a", count: 255)
        #expect(try store.putIfAbsent(longest, [7]))
        #expect(try store.list(prefix: "") == [longest])
    }

    static func getOfMissingIsNil(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        #expect(try store.get("missing") == nil)
        #expect(try store.get("no/such/directory/record") == nil)
        #expect(try store.putIfAbsent("some/record", [1]))
        #expect(try store.get("some") == nil)  // a directory of records is no record
        #expect(try store.get("some/record/below") == nil)
        #expect(try store.get("some/other") == nil)
    }

    static func getManyGivesWhatGetGives(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        var names: [String] = []
        for index in 0..<1_203 {
            let name = "devices/d/log/\(index)"
            if index % 3 != 0 { #expect(try store.putIfAbsent(name, Array("record \(index)".utf8))) }
            names.append(name)
        }
        // Past one query's thousand names, with names that have no record and one asked twice.
        let records = try store.getMany(names + ["devices/d/log/1", "missing"])
        #expect(records.count == 802)
        for name in names { #expect(records[name] == (try store.get(name))) }
        #expect(try store.getMany([]).isEmpty)
        // An invalid name is refused by name, as get refuses it.
        #expect(throws: SyncStoreError.self) { try store.getMany(["devices/d/log/1", "Upper"]) }
    }

    static func deleteIsIdempotent(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        try store.delete("never/written")
        #expect(try store.putIfAbsent("t/1", [1]))
        #expect(try store.putIfAbsent("t/1/child", [2]))
        try store.delete("t/1")
        #expect(try store.get("t/1") == nil)
        #expect(try store.get("t/1/child") == [2])
        try store.delete("t/1")
        try fixture.open().delete("t/1")
        #expect(try store.list(prefix: "") == ["t/1/child"])
        #expect(try store.putIfAbsent("t/1", [3]))  // a removed name can be written again
        #expect(try store.get("t/1") == [3])
    }

    static func bytesAreStoredVerbatim(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        let all = (0...255).map { UInt8($0) }
        var generator = SystemRandomNumberGenerator()
        let large = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(try store.putIfAbsent("empty", []))
        #expect(try store.putIfAbsent("all", all))
        #expect(try store.putIfAbsent("large", large))
        let other = try fixture.open()
        #expect(try other.get("empty") == [])
        #expect(try other.get("all") == all)
        #expect(try other.get("large") == large)
    }

    /// A watch is called for another instance's add and delete, and never after `cancel()` returns.
    static func watchSeesOtherInstanceAndStopsWhenCancelled(_ fixture: some StoreFixture) throws {
        let watched = try fixture.open()
        let writer = try fixture.open()
        let counter = ChangeCounter()
        let watch = try watched.watch(counter.onChange)
        var calls = counter.calls
        #expect(try writer.putIfAbsent("w/1", [1]))
        #expect(counter.wait(beyond: calls), "no call for another instance's add")
        Thread.sleep(forTimeInterval: 0.1)
        calls = counter.calls
        try writer.delete("w/1")
        #expect(counter.wait(beyond: calls), "no call for another instance's delete")
        Thread.sleep(forTimeInterval: 0.1)
        calls = counter.calls
        #expect(try writer.putIfAbsent("w/deeper/new/directory/2", [2]))
        #expect(counter.wait(beyond: calls), "no call for an add in new directories")
        watch.cancel()
        calls = counter.calls
        #expect(try writer.putIfAbsent("w/3", [3]))
        try writer.delete("w/deeper/new/directory/2")
        Thread.sleep(forTimeInterval: 1.2)  // beyond the folder store's poll interval
        #expect(counter.calls == calls, "a call after cancel")
        watch.cancel()  // a second cancel is harmless
    }

    /// Cancelling from inside the callback does not wait for itself.
    static func watchCanBeCancelledFromItsCallback(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        let box = Mutex<(any SyncStoreWatch)?>(nil)
        let counter = ChangeCounter()
        let watch = try store.watch {
            counter.onChange()
            box.withLock { $0 }?.cancel()
        }
        box.withLock { $0 = watch }
        #expect(try fixture.open().putIfAbsent("c/1", [1]))
        #expect(counter.wait(beyond: 0))
        let calls = counter.calls
        #expect(try fixture.open().putIfAbsent("c/2", [2]))
        Thread.sleep(forTimeInterval: 1.2)
        #expect(counter.calls == calls)
        watch.cancel()
    }

    /// Checks that list, get, put and delete on `store` all throw `kind`, with messages holding `naming`.
    static func expectEveryVerbFails(_ store: any SyncStore, with kind: SyncStoreError.Kind, naming: String) {
        for verb in ["list", "get", "put", "delete"] {
            do {
                switch verb {
                case "list": _ = try store.list(prefix: "")
                case "get": _ = try store.get("every/verb/1")
                case "put": _ = try store.putIfAbsent("every/verb/2", [2])
                default: try store.delete("every/verb/1")
                }
                Issue.record("\(verb) did not fail")
            } catch {
                #expect(error.kind == kind, "\(verb): \(error)")
                #expect(error.message.contains(naming), "\(verb): \(error.message) does not name \(naming)")
            }
        }
    }
}
