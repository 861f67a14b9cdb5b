import Foundation
import KeychainClient
import KeychainCore
import KeychainKeys
import KeychainWire
import Synchronization

/// keychaind beside the embedded engine, in the same run: find with one client and with 8 clients together (each
/// a thread with a `DaemonClient`, and so a connection, of its own) beside embedded find; durable add with 1 and
/// 8 clients beside the one-writer floor (plain SQLite, `synchronous=FULL`); and `security find-generic-password
/// -w` as a whole process through the daemon, on a keychain without a passcode and on one with a passcode unlocked
/// earlier; and the same as one user while another floods the daemon (FloodBench.swift). The daemon is the
/// release `keychaind` beside the bench, on a temporary socket and state directory, killed and reaped at the end
/// whatever happens.
enum DaemonBench {
    /// The figures, named as in the JSON report.
    struct Report: Codable {
        /// Items in the daemon's and the embedded keychain while finding.
        var items: Int
        /// Find (data), one client: ours is the daemon, the "floor" the embedded engine.
        var find_one_client: Comparison
        /// Find (data), 8 clients together: per-find latency and the 8 clients' throughput together.
        var find_eight_clients: Figures
        /// Durable add, one client through the daemon beside one writer on the floor.
        var add_one_client: Comparison
        /// Durable add, 8 clients together through the daemon (their throughput together) beside one writer on the
        /// floor.
        var add_eight_clients: Comparison
        /// Stored non-extractable keys' private operations: ours through keychaind, the "floor" the embedded engine
        /// (both open the key item and run the operation), by operation.
        var stored_keys: [String: Comparison]?
        /// A `ping` through the daemon (no keychain touched), p50 µs: the round trip's own cost.
        var round_trip_p50_us: Double?
        /// `security find-generic-password -w` through the daemon, median ms; `nil` when not measured.
        var cli_find_ms: Double?
        /// The same on a keychain with a passcode, unlocked earlier.
        var cli_find_passcode_ms: Double?
        /// Why the CLI was not measured, when it was not.
        var cli_note: String?
        /// `security find-generic-password -w` with keychaind on the default socket and no `KEYCHAIN_*` variable set
        /// (the everyday case), median ms.
        var cli_default_socket_find_ms: Double?
        /// How many connections that command opens to the daemon's socket (counted with strace).
        var cli_default_socket_connections: Int?
        /// Why the default-socket CLI was not measured, when it was not.
        var cli_default_socket_note: String?
        /// One user's `find-generic-password -w`, quiet and while another user floods the daemon.
        var flood: FloodBench.Report?
        /// Why the flood was not measured, when it was not.
        var flood_note: String?
    }

    static let clients = 8
    private static let caller = Caller(applicationIdentifier: "TEAM.bench")

    /// Runs every phase on a fresh daemon, or returns `nil` when no `keychaind` is built beside the bench.
    static func run(items: Int, seed: UInt64) throws -> Report? {
        try withFreshDaemon { executable, daemon, directory, embedded in
            let (findOne, findEight) = try find(daemon: daemon, embedded: embedded, items: items, seed: seed)
            let (addOne, addEight) = try add(daemon: daemon, floor: FloorStore(directory: directory))
            var report = Report(
                items: items, find_one_client: findOne, find_eight_clients: findEight, add_one_client: addOne,
                add_eight_clients: addEight)
            report.round_trip_p50_us = try roundTrip(daemon: daemon)
            report.stored_keys = try storedKeyOperations(daemon: daemon, embedded: embedded)
            try measureCLI(daemon: daemon, into: &report)
            try measureDefaultSocketCLI(executable: executable, into: &report)
            (report.flood, report.flood_note) = try FloodBench.run(daemon: daemon)
            return report
        }
    }

    /// Only the round trip and the stored keys' operations, on a fresh daemon (`--only-daemon-keys`: a quick loop on
    /// their latency), or `nil` when no `keychaind` is built beside the bench.
    static func runKeysOnly() throws -> (roundTrip: Double, keys: [String: Comparison])? {
        try withFreshDaemon { _, daemon, _, embedded in
            (try roundTrip(daemon: daemon), try storedKeyOperations(daemon: daemon, embedded: embedded))
        }
    }

    /// `body` with a fresh daemon, a temporary directory and an embedded engine in it (stopped and removed after), or
    /// `nil` when no `keychaind` is built beside the bench.
    private static func withFreshDaemon<Result>(
        _ body: (_ executable: String, BenchDaemon, _ directory: URL, _ embedded: Engine) throws -> Result
    ) throws -> Result? {
        guard let executable = BenchDaemon.executable else { return nil }
        let daemon = try BenchDaemon(executable: executable)
        defer { daemon.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let embedded = try Engine(storage: .directory(directory.appendingPathComponent("embedded")))
        return try body(executable, daemon, directory, embedded)
    }

    // MARK: Find

    private static func find(
        daemon: BenchDaemon, embedded: Engine, items: Int, seed: UInt64
    ) throws -> (Comparison, Figures) {
        let client = daemon.client()
        for start in stride(from: 0, to: items, by: 1000) {
            let batch = (start..<min(items, start + 1000)).map { EngineStore.newItem(BenchEntry($0)) }
            _ = try client.add(batch, for: caller)
            _ = try embedded.add(batch, for: caller)
        }
        var random = SplitMix(seed: seed)
        let keys = (0..<4000).map { _ in Int(random.next() % UInt64(items)) }
        // Daemon and embedded take turns, as the item phases do, so a noisy moment touches both alike.
        var ours = LatencyRecorder(capacity: keys.count)
        var floor = LatencyRecorder(capacity: keys.count)
        for start in stride(from: 0, to: keys.count, by: ItemWorkload.turn) {
            let slice = keys[start..<min(start + ItemWorkload.turn, keys.count)]
            for index in slice { try ours.time { try findOne(index, on: client) } }
            for index in slice { try floor.time { try findOne(index, on: embedded) } }
        }
        let perClient = 1000
        var findClients: [DaemonClient] = []
        for _ in 0..<clients { findClients.append(daemon.client()) }
        let findBody: @Sendable (Int, DaemonClient) throws -> LatencyRecorder = { offset, client in
            var recorder = LatencyRecorder(capacity: perClient)
            for step in 0..<perClient {
                let index: Int = keys[(offset * perClient + step) % keys.count]
                try recorder.time { try findOne(index, on: client) }
            }
            return recorder
        }
        let eight: Figures = try together(clients: findClients, findBody, samples: { _ in })
        return (Comparison(ours: ours.figures, floor: floor.figures), eight)
    }

    /// The daemon's round trip alone: a `ping`, which touches no keychain, p50 µs over 4,000 on one client.
    private static func roundTrip(daemon: BenchDaemon) throws -> Double {
        let client = daemon.client()
        var recorder = LatencyRecorder(capacity: 4000)
        for _ in 0..<4000 { try recorder.time { _ = try client.send(.ping) } }
        return recorder.figures.p50_us
    }

    /// Stored keys' private operations through keychaind beside the embedded engine's, taking turns: P-256 sign and
    /// ECDH, RSA-2048 sign and OAEP decrypt (verify and encrypt use the public key, in the caller's process).
    private static func storedKeyOperations(daemon: BenchDaemon, embedded: Engine) throws -> [String: Comparison] {
        KeyUsePerformer.install()
        let client = daemon.client()
        let peer = try AsymmetricKey.generateEC(.p256).publicRepresentation()
        let message = Data(repeating: 0x42, count: 64)
        let cases: [(String, Int64, Int, KeyUse)] = [
            (
                "P-256 sign", CredentialAttributes.ellipticCurveType, 256,
                KeyUse(.sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: message)
            ),
            (
                "P-256 ECDH", CredentialAttributes.ellipticCurveType, 256,
                KeyUse(.keyExchange, algorithm: "algid:keyexchange:ECDH", input: peer)
            ),
            (
                "RSA-2048 sign", CredentialAttributes.rsaType, 2048,
                KeyUse(.sign, algorithm: "algid:sign:RSA:message-PKCS1v15:SHA256", input: message)
            ),
            ("RSA-2048 decrypt OAEP", CredentialAttributes.rsaType, 2048, KeyUse(.publicKey)),
        ]
        var results: [String: Comparison] = [:]
        for (name, type, bits, use) in cases {
            let tag = Data("bench.\(name)".utf8)
            let generation = KeyGeneration(
                keyType: type, sizeInBits: bits,
                privateKey: NewItem(
                    itemClass: .key, attributes: [.applicationTag: .data(tag), .isExtractable: .bool(false)]),
                publicKey: nil)
            _ = try client.generateKey(generation, for: caller)
            _ = try embedded.generateKey(generation, for: caller)
            let query = ItemQuery(itemClass: .key, attributes: [.applicationTag: .data(tag)])
            var ours = use
            var floor = use
            if use.operation == .publicKey {
                // The two keychains' keys differ: each decrypts a ciphertext made for its own public key.
                func ciphertext(for publicKey: Data) throws -> KeyUse {
                    let sealed = try AsymmetricKey.importing(publicKey, kind: .rsa, isPrivate: false).encrypt(
                        Data(repeating: 7, count: 32), padding: .oaep(.sha256))
                    return KeyUse(.decrypt, algorithm: "algid:encrypt:RSA:OAEP:SHA256", input: sealed)
                }
                ours = try ciphertext(for: try client.useKey(query, use, for: caller))
                floor = try ciphertext(for: try embedded.useKey(query, use, for: caller))
            }
            results[name] = try compare(
                { _ = try client.useKey(query, ours, for: caller) },
                { _ = try embedded.useKey(query, floor, for: caller) }, runs: bits > 256 ? 400 : 2000)
        }
        return results
    }

    /// Two operations' latencies, taking turns in runs of 100.
    private static func compare(
        _ ours: () throws -> Void, _ floor: () throws -> Void, runs: Int
    ) throws -> Comparison {
        var oursRecorder = LatencyRecorder(capacity: runs)
        var floorRecorder = LatencyRecorder(capacity: runs)
        for _ in 0..<(runs / 100) {
            for _ in 0..<100 { try oursRecorder.time(ours) }
            for _ in 0..<100 { try floorRecorder.time(floor) }
        }
        return Comparison(ours: oursRecorder.figures, floor: floorRecorder.figures)
    }

    private static func findOne(_ index: Int, on backend: some KeychainBackend) throws {
        let entry = BenchEntry(index)
        let found = try backend.copyMatching(
            EngineStore.query(service: entry.service, account: entry.account, returning: .data), for: caller)
        guard found.first?.data == entry.secret else {
            throw BenchError("find through keychaind returned the wrong item")
        }
    }

    // MARK: Durable add

    /// Rounds of 200 adds each: one writer on the floor, one client through the daemon, then 8 clients together
    /// (25 each), so every contestant meets the same moments of the machine.
    private static func add(daemon: BenchDaemon, floor: FloorStore) throws -> (Comparison, Comparison) {
        let rounds = 5
        let perRound = 200
        var floorRecorder = LatencyRecorder(capacity: rounds * perRound)
        var oneRecorder = LatencyRecorder(capacity: rounds * perRound)
        var eightSamples: [UInt64] = []
        var eightNanoseconds: UInt64 = 0
        let one = daemon.client()
        var eight: [DaemonClient] = []
        for _ in 0..<clients { eight.append(daemon.client()) }
        for round in 0..<rounds {
            for index in 0..<perRound {
                let entry = BenchEntry(round * perRound + index, prefix: "floor")
                try floorRecorder.time { try floor.add(entry) }
            }
            for index in 0..<perRound {
                let item: NewItem = EngineStore.newItem(BenchEntry(round * perRound + index, prefix: "one"))
                let _: Item = try oneRecorder.time { try one.add(item, for: caller) }
            }
            let start = DispatchTime.now().uptimeNanoseconds
            let addBody: @Sendable (Int, DaemonClient) throws -> LatencyRecorder = { offset, client in
                let each = perRound / clients
                var recorder = LatencyRecorder(capacity: each)
                for index in 0..<each {
                    let entry = BenchEntry(round * perRound + index, prefix: "client\(offset)")
                    let item: NewItem = EngineStore.newItem(entry)
                    let _: Item = try recorder.time { try client.add(item, for: caller) }
                }
                return recorder
            }
            let collect: ([UInt64]) -> Void = { eightSamples += $0 }
            let _: Figures = try together(clients: eight, addBody, samples: collect)
            eightNanoseconds += DispatchTime.now().uptimeNanoseconds - start
        }
        // The 8 clients' latencies, and their throughput together: every add over the wall time of the rounds.
        var eightRecorder = LatencyRecorder(capacity: eightSamples.count)
        for sample in eightSamples { eightRecorder.record(sample) }
        var eightFigures = eightRecorder.figures
        eightFigures.ops_per_s = Double(eightSamples.count) / (Double(eightNanoseconds) / 1e9)
        return (
            Comparison(ours: oneRecorder.figures, floor: floorRecorder.figures),
            Comparison(ours: eightFigures, floor: floorRecorder.figures)
        )
    }

    // MARK: Clients together

    /// Runs `body` on one thread per client, released together once every thread is running; returns the
    /// per-operation figures of all of them and their throughput together (every operation over the wall time
    /// from the release to the last thread's end). `samples` also receives every latency.
    static func together(
        clients: [DaemonClient], _ body: @escaping @Sendable (Int, DaemonClient) throws -> LatencyRecorder,
        samples: ([UInt64]) -> Void
    ) throws -> Figures {
        // Each client connects before the clock starts.
        for client in clients { _ = try client.keybagStatus() }
        let results = Collected()
        let ready = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for (offset, client) in clients.enumerated() {
            let thread = Thread {
                ready.signal()
                release.wait()
                let result: Result<[UInt64], any Error> = Result { try body(offset, client).samples }
                results.outcomes.withLock { $0.append(result) }
                finished.signal()
            }
            thread.start()
        }
        for _ in clients { ready.wait() }
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in clients { release.signal() }
        for _ in clients { finished.wait() }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        var recorder = LatencyRecorder(capacity: 0)
        for result in results.outcomes.withLock({ $0 }) {
            for sample in try result.get() { recorder.record(sample) }
        }
        samples(recorder.samples)
        var figures = recorder.figures
        figures.ops_per_s = Double(recorder.samples.count) / (Double(elapsed) / 1e9)
        return figures
    }

    /// What the threads of ``together(clients:_:samples:)`` return.
    private final class Collected: Sendable {
        let outcomes = Mutex<[Result<[UInt64], any Error>]>([])
    }

    // MARK: The CLI through the daemon

    /// `security find-generic-password -w` with `KEYCHAIN_DAEMON` naming the daemon and no keychain argument, in an
    /// environment whose embedded default keychain is an empty directory: the item the CLI added must then be in
    /// the daemon's keychain, or this `security` does not go through the daemon (the figure is left out, saying so).
    private static func measureCLI(daemon: BenchDaemon, into report: inout Report) throws {
        guard let tool = CLIBench.tool else {
            report.cli_note = "no release `security` beside the bench"
            return
        }
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "KEYCHAIN_DAEMON=\(daemon.socketPath)", "HOME=\(home.path)", "KEYCHAIN_HOME=\(home.path)/embedded",
            "SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin",
        ]
        let add = ["add-generic-password", "-a", "bench", "-s", "cli-daemon", "-w", "bench secret"]
        try CLIBench.run(tool, add, environment: environment)
        let client = daemon.client()
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("cli-daemon")], limit: .all)
        let administrator = Caller.administrator(defaultGroup: "TEAM.bench")
        var reached = false
        do throws(EngineError) {
            let found: [Item] = try client.copyMatching(query, for: administrator)
            reached = !found.isEmpty
        } catch {
            guard error.code == .itemNotFound else { throw error }
        }
        guard reached else {
            report.cli_note =
                "this `security` does not honour KEYCHAIN_DAEMON (its add went to the embedded keychain), not measured"
            return
        }
        let find = ["find-generic-password", "-a", "bench", "-s", "cli-daemon", "-w"]
        report.cli_find_ms = try CLIBench.medianMilliseconds(tool, find, environment: environment)
        // The same keychain with a passcode, locked and unlocked again: the daemon holds it unlocked for every
        // process of the user.
        try client.setPasscode("bench passcode", current: nil)
        try client.lock()
        try client.unlock(passcode: "bench passcode")
        report.cli_find_passcode_ms = try CLIBench.medianMilliseconds(tool, find, environment: environment)
    }

    /// `security find-generic-password -w` as a user runs it where keychaind is installed: the daemon on the default
    /// socket and no `KEYCHAIN_DAEMON` or `KEYCHAIN_HOME` set, timed and with its connections to the socket counted
    /// (strace's `connect` calls): one, when the process's one answer to "which keychain" shares its connection.
    /// Measured only as root and where no keychaind holds the default socket already (an installed one is left
    /// alone).
    private static func measureDefaultSocketCLI(executable: String, into report: inout Report) throws {
        let socket = DaemonSocket.defaultPath
        guard let tool = CLIBench.tool else { return }
        guard getuid() == 0, !FileManager.default.fileExists(atPath: socket) else {
            report.cli_default_socket_note = "needs root and a free \(socket) (an installed keychaind is left alone)"
            return
        }
        let socketDirectory = (socket as NSString).deletingLastPathComponent
        let madeDirectory = !FileManager.default.fileExists(atPath: socketDirectory)
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        defer { if madeDirectory { rmdir(socketDirectory) } }
        let daemon = try BenchDaemon(executable: executable, socket: socket)
        defer { daemon.stop() }
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["HOME=\(home.path)", "SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin"]
        try CLIBench.run(
            tool, ["add-generic-password", "-a", "bench", "-s", "cli-default", "-w", "bench secret"],
            environment: environment)
        let find = ["find-generic-password", "-a", "bench", "-s", "cli-default", "-w"]
        report.cli_default_socket_find_ms = try CLIBench.medianMilliseconds(tool, find, environment: environment)
        let strace = "/usr/bin/strace"
        guard FileManager.default.isExecutableFile(atPath: strace) else {
            report.cli_default_socket_note = "strace is not installed: connections not counted"
            return
        }
        let trace = home.appendingPathComponent("connect.trace").path
        try CLIBench.run(
            strace, ["-f", "-e", "trace=connect", "-o", trace, tool] + find, environment: environment)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        report.cli_default_socket_connections = lines.filter { $0.contains(socket) }.count
    }
}
