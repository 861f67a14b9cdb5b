import Foundation

/// One item of the workload.
struct BenchEntry {
    var service: String
    var account: String
    var label: String
    var secret: Data

    init(_ index: Int, prefix: String = "acct") {
        service = "service-\(index % 16).example.com"
        account = "\(prefix)-\(index)"
        label = "Bench item \(index)"
        secret = Data("secret-\(index)-\(String(repeating: "x", count: 24))".utf8)
    }
}

/// What the workload needs of a store: ours and the floor implement it.
protocol BenchStore {
    func add(_ entry: BenchEntry) throws
    func find(service: String, account: String, withData: Bool) throws -> Data?
    func update(service: String, account: String, secret: Data) throws
    func delete(service: String, account: String) throws
    /// Adds the entries `indices` (prefix "batch") in one transaction, timing each add; made lazily so the
    /// benchmark's own memory does not count against the store's.
    func batchAdd(_ indices: Range<Int>, recorder: inout LatencyRecorder) throws
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The item phases for one N: durable add, find (data), find (attributes), update, delete, batch add.
enum ItemWorkload {
    static let phases = ["add", "find", "find_attributes", "update", "delete", "batch_add"]

    /// Runs every phase on a fresh store and returns each phase's figures.
    static func run(_ store: BenchStore, count: Int, seed: UInt64) throws -> [String: Figures] {
        var random = SplitMix(seed: seed)
        var results: [String: Figures] = [:]

        var add = LatencyRecorder(capacity: count)
        for index in 0..<count {
            let entry = BenchEntry(index)
            try add.time { try store.add(entry) }
        }
        results["add"] = add.figures

        let lookups = min(count, 10_000)
        for (phase, withData) in [("find", true), ("find_attributes", false)] {
            var find = LatencyRecorder(capacity: lookups)
            for _ in 0..<lookups {
                let entry = BenchEntry(Int(random.next() % UInt64(count)))
                let found = try find.time {
                    try store.find(service: entry.service, account: entry.account, withData: withData)
                }
                guard let found, !withData || found == entry.secret else {
                    throw BenchError("\(phase) returned the wrong item")
                }
            }
            results[phase] = find.figures
        }

        let writes = min(count, 1000)
        let targets = Array(Set((0..<writes * 2).map { _ in Int(random.next() % UInt64(count)) })).prefix(writes)
        var update = LatencyRecorder(capacity: writes)
        for index in targets {
            let entry = BenchEntry(index)
            try update.time {
                try store.update(service: entry.service, account: entry.account, secret: Data("rotated-\(index)".utf8))
            }
        }
        results["update"] = update.figures

        var delete = LatencyRecorder(capacity: writes)
        for index in targets {
            let entry = BenchEntry(index)
            try delete.time { try store.delete(service: entry.service, account: entry.account) }
        }
        results["delete"] = delete.figures

        var batch = LatencyRecorder(capacity: count)
        try store.batchAdd(0..<count, recorder: &batch)
        results["batch_add"] = batch.figures
        return results
    }
}

/// SplitMix64, so ours and the floor look up the same keys in the same order.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
