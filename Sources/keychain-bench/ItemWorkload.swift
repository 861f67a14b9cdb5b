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

    /// Runs every phase on fresh stores — ours, the floor and, when given, the sealed floor — taking turns every
    /// ``turn`` operations (the same operations on each): a noisy moment of the machine then touches every figure
    /// alike, while each store still runs long enough to work from warm caches, as it would alone. Only the batch
    /// add, one transaction per store, runs on each store in turn. Returns ours beside the floor, and beside the
    /// sealed floor when there is one.
    static let turn = 250

    static func run(
        ours: BenchStore, floor: BenchStore, sealedFloor: BenchStore? = nil, count: Int, seed: UInt64
    ) throws -> (floor: [String: Comparison], sealedFloor: [String: Comparison]?) {
        let stores = [ours, floor] + (sealedFloor.map { [$0] } ?? [])
        var random = SplitMix(seed: seed)
        var recorders: [String: [LatencyRecorder]] = [:]
        func phase(_ name: String, capacity: Int, _ body: (BenchStore, inout LatencyRecorder) throws -> Void) rethrows {
            var recorded = stores.map { _ in LatencyRecorder(capacity: capacity) }
            for side in stores.indices { try body(stores[side], &recorded[side]) }
            recorders[name, default: []] = recorded
        }
        func lockstep(_ name: String, _ operations: some Collection<Int>, _ body: (BenchStore, Int) throws -> Void)
            rethrows
        {
            var recorded = stores.map { _ in LatencyRecorder(capacity: count) }
            let operations = Array(operations)
            for start in stride(from: 0, to: operations.count, by: turn) {
                let slice = operations[start..<min(start + turn, operations.count)]
                for side in stores.indices {
                    for operation in slice { try recorded[side].time { try body(stores[side], operation) } }
                }
            }
            recorders[name] = recorded
        }

        try lockstep("add", 0..<count) { store, index in try store.add(BenchEntry(index)) }

        let lookups = min(count, 10_000)
        for (name, withData) in [("find", true), ("find_attributes", false)] {
            let keys = (0..<lookups).map { _ in Int(random.next() % UInt64(count)) }
            try lockstep(name, keys) { store, index in
                let entry = BenchEntry(index)
                let found = try store.find(service: entry.service, account: entry.account, withData: withData)
                guard let found, !withData || found == entry.secret else {
                    throw BenchError("\(name) returned the wrong item")
                }
            }
        }

        let writes = min(count, 1000)
        let targets = Array(Set((0..<writes * 2).map { _ in Int(random.next() % UInt64(count)) })).prefix(writes)
        try lockstep("update", targets) { store, index in
            let entry = BenchEntry(index)
            try store.update(service: entry.service, account: entry.account, secret: Data("rotated-\(index)".utf8))
        }
        try lockstep("delete", targets) { store, index in
            let entry = BenchEntry(index)
            try store.delete(service: entry.service, account: entry.account)
        }

        try phase("batch_add", capacity: count) { store, recorder in try store.batchAdd(0..<count, recorder: &recorder)
        }

        func beside(_ side: Int) -> [String: Comparison] {
            recorders.mapValues { Comparison(ours: $0[0].figures, floor: $0[side].figures) }
        }
        return (beside(1), stores.count > 2 ? beside(2) : nil)
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
