// A worker process for the multi-process and crash tests (Tests/KeychainCoreTests/MultiProcessTests.swift):
//
//   keychain-stress mixed DIR WORKER OPS SEED   adds, updates and deletes its own items and races the other
//                                               workers on shared ones, checking every status against a model;
//                                               prints the final state of its own items
//   keychain-stress writer DIR COUNT            adds items one durable transaction each and prints the index of
//                                               each acknowledged add (unbuffered), until killed
//   keychain-stress acknowledged DIR SEED       mixed writes until killed, each announced and acknowledged
//                                               (AcknowledgedWriter.swift)
//   keychain-stress watch DIR                   prints every change to generic passwords of any group that
//                                               Keychain.changes() reports, after a first "ready" (ChangeWatcher.swift)
//   keychain-stress stream-file DIR BYTES       streams a protected file of BYTES through every streaming path and
//                                               prints its peak resident set (StreamFile.swift)
import Foundation
import KeychainCore

let caller = Caller(applicationIdentifier: "TEAM.stress")

/// SplitMix64: a small seeded generator so a worker's operations can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("keychain-stress: \(message)\n".utf8))
    exit(1)
}

func query(_ account: String) -> ItemQuery {
    ItemQuery(itemClass: .genericPassword, attributes: [.account: .string(account), .service: .string("stress")])
}

func item(_ account: String, _ value: String) -> NewItem {
    NewItem(
        itemClass: .genericPassword, attributes: [.account: .string(account), .service: .string("stress")],
        data: Data(value.utf8))
}

func code(_ body: () throws -> Void) -> EngineError.Code? {
    do {
        try body()
        return nil
    } catch let error as EngineError {
        if error.code == .ioError { fail("I/O error: \(error.message)") }
        if error.code == .decode { fail("decode error: \(error.message)") }
        return error.code
    } catch {
        fail("unexpected error: \(error)")
    }
}

/// Adds, and on a duplicate updates: a set that settles races with other writers of the same key.
func set(_ key: String, _ value: String, in engine: Engine) {
    let added = code { try engine.add(item(key, value), for: caller) }
    if added == .duplicateItem {
        let updated = code { _ = try engine.update(query(key), with: ItemChanges(data: Data(value.utf8)), for: caller) }
        if updated != nil { fail("update \(key): \(String(describing: updated))") }
    } else if added != nil {
        fail("add \(key): \(String(describing: added))")
    }
}

func runMixed(engine: Engine, worker: Int, operations: Int, seed: UInt64) {
    var random = SeededGenerator(state: seed)
    var model: [String: String] = [:]
    let keys = (0..<40).map { "w\(worker)-k\($0)" }
    for index in 0..<operations {
        let value = "v\(worker)-\(index)"
        let choice = Int.random(in: 0..<10, using: &random)
        if choice == 9 {
            // Race the other workers on a shared key: add, and on a duplicate, update.
            set("shared-\(Int.random(in: 0..<5, using: &random))", value, in: engine)
            continue
        }
        let key = keys[Int.random(in: 0..<keys.count, using: &random)]
        let exists = model[key] != nil
        switch choice {
        case 0..<4:
            let result = code { try engine.add(item(key, value), for: caller) }
            guard result == (exists ? .duplicateItem : nil) else { fail("add \(key): \(String(describing: result))") }
            if !exists { model[key] = value }
        case 4..<7:
            let result = code {
                _ = try engine.update(query(key), with: ItemChanges(data: Data(value.utf8)), for: caller)
            }
            guard result == (exists ? nil : .itemNotFound) else { fail("update \(key): \(String(describing: result))") }
            if exists { model[key] = value }
        default:
            let result = code { _ = try engine.delete(query(key), for: caller) }
            guard result == (exists ? nil : .itemNotFound) else { fail("delete \(key): \(String(describing: result))") }
            model[key] = nil
        }
    }
    for key in keys { say("final \(key) \(model[key] ?? "-")") }
}

func runWriter(engine: Engine, count: Int) {
    for index in 0..<count {
        if let result = code({ try engine.add(item("acked-\(index)", "value-\(index)"), for: caller) }) {
            fail("add acked-\(index): \(result)")
        }
        say("\(index)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 || (arguments.count == 3 && arguments[1] == "watch") else {
    fail(
        "usage: keychain-stress mixed DIR WORKER OPS SEED | writer DIR COUNT | acknowledged DIR SEED | watch DIR | "
            + "stream-file DIR BYTES")
}
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
do {
    switch arguments[1] {
    case "mixed" where arguments.count == 6:
        guard let worker = Int(arguments[3]), let operations = Int(arguments[4]), let seed = UInt64(arguments[5]) else {
            fail("mixed needs WORKER OPS SEED as numbers")
        }
        runMixed(engine: try Engine(storage: .directory(directory)), worker: worker, operations: operations, seed: seed)
    case "writer":
        guard let count = Int(arguments[3]) else { fail("writer needs COUNT as a number") }
        runWriter(engine: try Engine(storage: .directory(directory)), count: count)
    case "acknowledged":
        guard let seed = UInt64(arguments[3]) else { fail("acknowledged needs SEED as a number") }
        runAcknowledgedWriter(engine: try Engine(storage: .directory(directory)), seed: seed)
    case "watch":
        try await runWatcher(directory: directory)
    case "stream-file":
        guard let size = Int(arguments[3]) else { fail("stream-file needs BYTES as a number") }
        try runStreamFile(directory: directory, size: size)
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("\(arguments[1]) in \(directory.path): \(error)")
}
