import Foundation
import KeychainCore
import KeychainSync

/// Sync (issue 14): three devices on one store each add `changes` synchronizable items, then sync in turn until a
/// round changes nothing; the time to converge, and the bytes the store holds per item version beside the item's
/// plaintext (attributes and secret). On a folder store, and on PostgreSQL when `KEYCHAIN_BENCH_POSTGRES` (or
/// `KEYCHAIN_TEST_POSTGRES`) names a server's database.
enum SyncBench {
    struct StoreResult: Codable {
        var store: String
        var devices: Int
        var changes_per_device: Int
        var converge_seconds: Double
        var rounds: Int
        var stored_bytes_per_item: Double
        var plaintext_bytes_per_item: Double
    }

    struct Report: Codable {
        var results: [StoreResult]
        var skipped: [String]
    }

    static func run(changes: Int) throws -> Report {
        var results: [StoreResult] = []
        var skipped: [String] = []
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("store").path
        results.append(try measure(store: "folder", url: "file://" + folder, in: directory, changes: changes))
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["KEYCHAIN_BENCH_POSTGRES"] ?? environment["KEYCHAIN_TEST_POSTGRES"] {
            results.append(try measure(store: "postgresql", url: url, in: directory, changes: changes))
        } else {
            skipped.append("postgresql: set KEYCHAIN_BENCH_POSTGRES to an empty database's URL")
        }
        return Report(results: results, skipped: skipped)
    }

    private static func measure(store kind: String, url: String, in parent: URL, changes: Int) throws -> StoreResult {
        let base = parent.appendingPathComponent(kind, isDirectory: true)
        let caller = Caller.administrator(defaultGroup: "bench")
        var engines: [Engine] = []
        var devices: [SyncDevice] = []
        for index in 0..<3 {
            let directory = base.appendingPathComponent("device\(index)", isDirectory: true)
            let engine = try Engine(storage: .directory(directory))
            let store = try SyncStores.open(url: url)
            let device =
                index == 0
                ? try SyncDevice.createCircle(
                    directory: directory, backend: engine, store: store, storeURL: url, name: "device\(index)")
                : try SyncDevice.join(
                    directory: directory, backend: engine, store: store, storeURL: url, name: "device\(index)")
            if index > 0 {
                try devices[0].answerJoinRequests()
                guard let code = try device.revealJoinCodes()[devices[0].name] else {
                    throw SyncError(.notFound, "device 0 did not answer device \(index)")
                }
                try devices[0].approve(code: code)
            }
            engines.append(engine)
            devices.append(device)
        }
        for device in devices { try device.syncOnce() }
        var plaintext = 0
        for (index, engine) in engines.enumerated() {
            var items: [NewItem] = []
            for number in 0..<changes {
                let account = "user\(number)@device\(index).example"
                let service = "service-\(number % 50).example.com"
                let secret = "secret-\(UInt64.random(in: 0...UInt64.max))"
                plaintext += account.utf8.count + service.utf8.count + secret.utf8.count + 24
                items.append(
                    NewItem(
                        itemClass: .genericPassword,
                        attributes: [
                            .account: .string(account), .service: .string(service), .synchronizable: .bool(true),
                        ], data: Data(secret.utf8)))
            }
            try engine.add(items, for: caller)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var rounds = 0
        while rounds < 20 {
            rounds += 1
            var changed = false
            for device in devices {
                let report = try device.syncOnce()
                // Converged: a round in which no device sent or changed anything (what a device only reads then,
                // the others' acknowledgments of the last items, changes nothing).
                changed = changed || report.sent + report.applied > 0
            }
            if !changed { break }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let store = try SyncStores.open(url: url)
        var itemBytes = 0
        var itemRecords = 0
        for name in try store.list(prefix: "devices/") where name.contains("/log/") {
            guard let bytes = try store.get(name) else { continue }
            if String(decoding: bytes, as: UTF8.self).contains("\"kind\":\"item\"") {
                itemBytes += bytes.count
                itemRecords += 1
            }
        }
        let total = changes * 3
        return StoreResult(
            store: kind, devices: 3, changes_per_device: changes, converge_seconds: seconds, rounds: rounds,
            stored_bytes_per_item: itemRecords == 0 ? 0 : Double(itemBytes) / Double(itemRecords),
            plaintext_bytes_per_item: Double(plaintext) / Double(max(1, total)))
    }
}
