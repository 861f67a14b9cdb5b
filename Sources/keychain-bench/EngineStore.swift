import Foundation
import KeychainCore

/// The engine under the benchmark's workload.
final class EngineStore: BenchStore {
    private let engine: Engine
    private let caller = Caller(applicationIdentifier: "TEAM.bench")

    init(directory: URL) throws {
        engine = try Engine(storage: .directory(directory.appendingPathComponent("keychain")))
    }

    /// The workload's item for an entry (the daemon's bench adds the same).
    static func newItem(_ entry: BenchEntry) -> NewItem {
        NewItem(
            itemClass: .genericPassword,
            attributes: [
                .service: .string(entry.service), .account: .string(entry.account), .label: .string(entry.label),
            ],
            data: entry.secret)
    }

    /// The workload's query for one item (the daemon's bench finds the same way).
    static func query(service: String, account: String, returning: ReturnOptions = []) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string(service), .account: .string(account)],
            returning: returning)
    }

    func add(_ entry: BenchEntry) throws {
        try engine.add(Self.newItem(entry), for: caller)
    }

    func find(service: String, account: String, withData: Bool) throws -> Data? {
        let items = try engine.copyMatching(
            Self.query(service: service, account: account, returning: withData ? .data : .attributes), for: caller)
        return withData ? items.first?.data : items.first.map { Data($0.attributes.string(.label)?.utf8 ?? "".utf8) }
    }

    func update(service: String, account: String, secret: Data) throws {
        _ = try engine.update(
            Self.query(service: service, account: account), with: ItemChanges(data: secret), for: caller)
    }

    func delete(service: String, account: String) throws {
        _ = try engine.delete(Self.query(service: service, account: account), for: caller)
    }

    func batchAdd(_ indices: Range<Int>, recorder: inout LatencyRecorder) throws {
        var itemsTotal: UInt64 = 0
        let start = DispatchTime.now().uptimeNanoseconds
        try engine.batch(for: caller) { batch throws(EngineError) in
            for index in indices {
                let item = Self.newItem(BenchEntry(index, prefix: "batch"))
                let itemStart = DispatchTime.now().uptimeNanoseconds
                try batch.add(item)
                let elapsed = DispatchTime.now().uptimeNanoseconds - itemStart
                recorder.record(elapsed)
                itemsTotal += elapsed
            }
        }
        // The commit belongs to the batch's throughput, though to no single add's latency.
        recorder.extraNanoseconds += DispatchTime.now().uptimeNanoseconds - start - itemsTotal
    }
}
