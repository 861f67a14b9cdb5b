import Foundation
import KeychainCore
import KeychainKeys

/// One phase of the embedded engine alone, in a loop, for a profiler (`perf record -g -- keychain-bench --profile
/// find`): issue 23 asks for profiles before and after each change. No floor and no figures but the rate, printed
/// at the end, so a profile holds the phase and little else.
enum ProfileLoop {
    /// The phases it can loop: finds (with data) on a keychain of 10,000 items, batch adds of 1,000 items in one
    /// transaction each, durable adds and updates (one transaction and fsync each) on 10,000 items, durable adds asked
    /// of keychaind by one client (`daemon_add`: its pid is printed, for `perf record -p`) or by 8 together
    /// (`daemon_add8`, a thread and a connection each), signatures (P-256) with a stored non-extractable key, or the same signatures asked of
    /// keychaind (`daemon_sign`: its pid is printed, for `perf record -p`).
    static let phases = ["find", "batch_add", "add", "update", "sign", "daemon_sign", "daemon_add", "daemon_add8"]

    /// Runs `phase` for about `seconds` and prints how many operations per second it carried out.
    static func run(_ phase: String, seconds: Double = 5) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try EngineStore(directory: directory)
        var recorder = LatencyRecorder(capacity: 10_000)
        var deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        /// Starts the clock again after a phase's set-up.
        func restartClock() { deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9) }
        var operations = 0
        /// Fills the keychain with 10,000 items, then runs `body` until the deadline (the set-up left out).
        func onTenThousandItems(_ body: (inout SplitMix) throws -> Void) throws {
            try store.batchAdd(0..<10_000, recorder: &recorder)
            restartClock()
            var random = SplitMix(seed: 1)
            while DispatchTime.now().uptimeNanoseconds < deadline {
                for _ in 0..<100 {
                    try body(&random)
                    operations += 1
                }
            }
        }
        switch phase {
        case "find":
            try onTenThousandItems { random in
                let entry = BenchEntry(Int(random.next() % 10_000), prefix: "batch")
                guard try store.find(service: entry.service, account: entry.account, withData: true) != nil else {
                    throw BenchError("find returned no item")
                }
            }
        case "batch_add":
            var start = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                var batch = LatencyRecorder(capacity: 1000)
                try store.batchAdd(start..<start + 1000, recorder: &batch)
                start += 1000
                operations += 1000
            }
        case "add":
            try onTenThousandItems { _ in try store.add(BenchEntry(10_000 + operations)) }
        case "update":
            try onTenThousandItems { random in
                let entry = BenchEntry(Int(random.next() % 10_000), prefix: "batch")
                try store.update(
                    service: entry.service, account: entry.account, secret: Data("rotated-\(operations)".utf8))
            }
        case "daemon_add", "daemon_add8":
            operations = try daemonAdds(clients: phase == "daemon_add" ? 1 : 8, until: deadline)
        case "sign":
            operations = try signatures(until: deadline, in: directory)
        case "daemon_sign":
            operations = try daemonSignatures(until: deadline)
        default:
            throw BenchError("--profile takes one of \(phases.joined(separator: ", ")), not \(phase)")
        }
        print("\(phase): \(Int(Double(operations) / seconds)) operations/s")
    }

    /// Signs with a stored P-256 key through the embedded engine until `deadline`, as keychaind does for a client;
    /// returns how many signatures it made.
    private static func signatures(until deadline: UInt64, in directory: URL) throws -> Int {
        KeyUsePerformer.install()
        let engine = try Engine(storage: .directory(directory.appendingPathComponent("keys")))
        return try signatures(on: engine, until: deadline)
    }

    /// Durable adds asked of a keychaind of its own by `clients` clients together (a thread and a connection each,
    /// as the daemon's figures run them) until `deadline`; returns how many were made.
    private static func daemonAdds(clients: Int, until deadline: UInt64) throws -> Int {
        let daemon = try profiledDaemon()
        defer { withExtendedLifetime(daemon) {} }  // stopped when released: not before the clients are done
        var operations = 0
        let _: Figures = try DaemonBench.together(
            clients: (0..<clients).map { _ in daemon.client() },
            { offset, client in
                let caller = Caller(applicationIdentifier: "TEAM.bench")
                var recorder = LatencyRecorder(capacity: 10_000)
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let entry = BenchEntry(recorder.samples.count, prefix: "client\(offset)")
                    let _: Item = try recorder.time { try client.add(EngineStore.newItem(entry), for: caller) }
                }
                return recorder
            }, samples: { operations = $0.count })
        return operations
    }

    /// Signs with a stored P-256 key through a keychaind of its own until `deadline`; returns how many signatures
    /// it asked for.
    private static func daemonSignatures(until deadline: UInt64) throws -> Int {
        let daemon = try profiledDaemon()
        defer { withExtendedLifetime(daemon) {} }  // stopped when released: not before the signatures are done
        return try signatures(on: daemon.client(), until: deadline)
    }

    /// A keychaind of its own, built beside the bench, its pid printed for `perf record -p`.
    private static func profiledDaemon() throws -> BenchDaemon {
        guard let executable = BenchDaemon.executable else { throw BenchError("no keychaind built beside the bench") }
        let daemon = try BenchDaemon(executable: executable)
        print("keychaind pid \(daemon.processID)")
        return daemon
    }

    /// Signs with a P-256 key it generates in `backend` until `deadline`; returns how many signatures it made.
    private static func signatures(on backend: some KeychainBackend, until deadline: UInt64) throws -> Int {
        let caller = Caller(applicationIdentifier: "TEAM.bench")
        let tag = Data("bench.profile.sign".utf8)
        let generation = KeyGeneration(
            keyType: CredentialAttributes.ellipticCurveType, sizeInBits: 256,
            privateKey: NewItem(
                itemClass: .key, attributes: [.applicationTag: .data(tag), .isExtractable: .bool(false)]),
            publicKey: nil)
        _ = try backend.generateKey(generation, for: caller)
        let query = ItemQuery(itemClass: .key, attributes: [.applicationTag: .data(tag)])
        let use = KeyUse(
            .sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: Data(repeating: 0x42, count: 64))
        var operations = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            for _ in 0..<100 { _ = try backend.useKey(query, use, for: caller) }
            operations += 100
        }
        return operations
    }
}
