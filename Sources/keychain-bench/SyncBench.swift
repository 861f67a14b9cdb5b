import Foundation
import KeychainCore
import KeychainSync

/// Sync (issue 14): three devices on one store each add `changes` synchronizable items, then sync in turn until a
/// round changes nothing; the time to converge, and the bytes the store holds per item version beside the item's
/// plaintext (attributes and secret), and the same for secrets of a few sizes (``secretSizes``). On a folder store, and on PostgreSQL when `KEYCHAIN_BENCH_POSTGRES` (or
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

    /// The bytes stored per item version for secrets of one size (issue 23: ≤ 1.3× plaintext + 300 for any size).
    struct RecordSize: Codable {
        var secret_bytes: Int
        var stored_bytes_per_item: Double
        var plaintext_bytes_per_item: Double
    }

    struct Report: Codable {
        var results: [StoreResult]
        var skipped: [String]
        var record_sizes: [RecordSize]?
    }

    /// The secret sizes whose records are measured besides the converge run's (about 26 bytes).
    static let secretSizes = [10, 1024, 65536]

    /// Issue 23's bound on the bytes stored per item version: 1.3× its plaintext + 300.
    static func bound(plaintext: Double) -> Double { 1.3 * plaintext + 300 }

    /// The figures as lines, each with its target and "met" or "MISSED".
    static func lines(_ report: Report) -> [String] {
        var lines: [String] = []
        for result in report.results {
            let bound = min(600, bound(plaintext: result.plaintext_bytes_per_item))
            lines.append(
                "sync \(result.store): 3 devices × \(result.changes_per_device) changes converge in "
                    + String(format: "%.2f s (%d rounds); ", result.converge_seconds, result.rounds)
                    + String(
                        format: "%.0f bytes stored per item version beside %.0f bytes of plaintext "
                            + "(≤ 600 and ≤ 1.3× plaintext + 300 = %.0f) — %@",
                        result.stored_bytes_per_item, result.plaintext_bytes_per_item, bound,
                        result.stored_bytes_per_item <= bound ? "met" : "MISSED"))
        }
        for size in report.record_sizes ?? [] {
            let bound = bound(plaintext: size.plaintext_bytes_per_item)
            lines.append(
                String(
                    format: "sync record, %d-byte secret: %.0f bytes stored per item version beside %.0f bytes of "
                        + "plaintext (≤ 1.3× plaintext + 300 = %.0f) — %@",
                    size.secret_bytes, size.stored_bytes_per_item, size.plaintext_bytes_per_item, bound,
                    size.stored_bytes_per_item <= bound ? "met" : "MISSED"))
        }
        for skipped in report.skipped { lines.append("sync \(skipped)") }
        return lines
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
        let sizes = try secretSizes.map { size in
            try recordSize(
                secret: size, url: "file://" + directory.appendingPathComponent("sized-\(size)").path,
                in: directory.appendingPathComponent("sized-device-\(size)", isDirectory: true))
        }
        return Report(results: results, skipped: skipped, record_sizes: sizes)
    }

    /// One device alone in its circle sends 20 items whose secrets have `secret` random bytes (the account and
    /// service as in the converge run); the bytes its item versions take in the store.
    private static func recordSize(secret: Int, url: String, in directory: URL) throws -> RecordSize {
        let caller = Caller.administrator(defaultGroup: "bench")
        let engine = try Engine(storage: .directory(directory))
        let device = try SyncDevice.createCircle(
            directory: directory, backend: engine, store: try SyncStores.open(url: url), storeURL: url, name: "sized")
        var plaintext = 0
        var items: [NewItem] = []
        for number in 0..<20 {
            let account = "user\(number)@device0.example"
            let service = "service-\(number % 50).example.com"
            plaintext += account.utf8.count + service.utf8.count + secret + 24
            items.append(
                NewItem(
                    itemClass: .genericPassword,
                    attributes: [
                        .account: .string(account), .service: .string(service), .synchronizable: .bool(true),
                    ], data: Data((0..<secret).map { _ in UInt8.random(in: 0...255) })))
        }
        try engine.add(items, for: caller)
        try device.syncOnce()
        let (bytes, records) = try itemVersionBytes(url: url)
        return RecordSize(
            secret_bytes: secret, stored_bytes_per_item: records == 0 ? 0 : Double(bytes) / Double(records),
            plaintext_bytes_per_item: Double(plaintext) / 20)
    }

    /// The bytes of the item versions in the store at `url`, and how many there are.
    private static func itemVersionBytes(url: String) throws -> (bytes: Int, records: Int) {
        let store = try SyncStores.open(url: url)
        var itemBytes = 0
        var itemRecords = 0
        for name in try store.list(prefix: "devices/") where name.contains("/log/") {
            guard let bytes = try store.get(name), SyncRecords.isItemVersion(bytes, name: name) else { continue }
            itemBytes += bytes.count
            itemRecords += 1
        }
        return (itemBytes, itemRecords)
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
        let (itemBytes, itemRecords) = try itemVersionBytes(url: url)
        let total = changes * 3
        return StoreResult(
            store: kind, devices: 3, changes_per_device: changes, converge_seconds: seconds, rounds: rounds,
            stored_bytes_per_item: itemRecords == 0 ? 0 : Double(itemBytes) / Double(itemRecords),
            plaintext_bytes_per_item: Double(plaintext) / Double(max(1, total)))
    }
}
