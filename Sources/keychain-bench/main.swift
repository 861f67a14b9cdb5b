// keychain-bench: the engine beside a plain-SQLite floor, in one process, at 1k, 10k and 100k items.
//
//   keychain-bench [--json] [--sizes 1000,10000,100000]
import Foundation
import KeychainCore

struct Report: Codable {
    var results: [String: [String: Comparison]]
    var peak_rss_mb: Double
    var unlock_ms: Double
    var unlock_cost: String
    /// `security find-generic-password -w` as a whole process, median ms (absent when `security` is not built).
    var cli_find_ms: Double?
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Unlock with the default Argon2id cost: a keychain with a passcode, reopened (locked), unlocked; median of 3.
func measureUnlock() throws -> Double {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try Engine(storage: .directory(directory)).setPasscode("bench passcode", current: nil)
    var timings: [Double] = []
    for _ in 0..<3 {
        let engine = try Engine(storage: .directory(directory))
        let start = DispatchTime.now().uptimeNanoseconds
        try engine.unlock(passcode: "bench passcode")
        timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return timings.sorted()[1]
}

var json = false
var sizes = [1000, 10_000, 100_000]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--json": json = true
    case "--sizes":
        guard let list = arguments.popFirst() else { break }
        sizes = list.split(separator: ",").compactMap { Int($0) }
    default:
        FileHandle.standardError.write(Data("usage: keychain-bench [--json] [--sizes 1000,10000,100000]\n".utf8))
        exit(2)
    }
}

do {
    var results: [String: [String: Comparison]] = [:]
    for count in sizes {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = UInt64.random(in: 1...UInt64.max)
        if !json { FileHandle.standardError.write(Data("running \(count) items…\n".utf8)) }
        let ours = try ItemWorkload.run(EngineStore(directory: directory), count: count, seed: seed)
        let floor = try ItemWorkload.run(FloorStore(directory: directory), count: count, seed: seed)
        var phases: [String: Comparison] = [:]
        for phase in ItemWorkload.phases {
            if let mine = ours[phase], let theirs = floor[phase] {
                phases[phase] = Comparison(ours: mine, floor: theirs)
            }
        }
        results[String(count)] = phases
    }
    let peak = peakResidentMegabytes()
    let report = Report(
        results: results, peak_rss_mb: peak, unlock_ms: try measureUnlock(), unlock_cost: "\(PasscodeCost.standard)",
        cli_find_ms: try CLIBench.medianFindMilliseconds())
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    } else {
        print(ReportTable(report: report, sizes: sizes).text)
    }
} catch {
    FileHandle.standardError.write(Data("keychain-bench: \(error)\n".utf8))
    exit(1)
}
