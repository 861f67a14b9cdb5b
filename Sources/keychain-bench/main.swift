// keychain-bench: the engine beside a plain-SQLite floor, in one process, at 1k, 10k and 100k items; protected
// files beside the raw secretstream floor (FileProtectionBench.swift); keychaind beside the embedded engine and the
// floor (DaemonBench.swift), when the release keychaind is built beside the bench.
//
//   keychain-bench [--json] [--sizes 1000,10000,100000] [--file-mib 256] [--no-daemon] [--only-daemon] [--only-tpm]
//                  [--sync-changes 1000] [--only-backup] [--backup-sizes 10000,100000]
//
// `--profile PHASE` loops one phase of the embedded engine for a profiler. `--only-daemon-keys` runs only the stored keys' operations through keychaind. `--only-daemon` runs only keychaind's figures (at 10k items) and the embedded `security` beside them: a quick
// loop while working on the daemon. `--only-backup` runs only backup and restore of a keychain at each
// `--backup-sizes` (BackupBench.swift), each in a child process of this bench (`--backup-child`). `--sync-changes N` sets the changes per device of the sync figures (0 skips). `--only-items` runs only the item
// phases beside their floor at each `--sizes`.
import Foundation
import KeychainCore

struct Report: Codable {
    var results: [String: [String: Comparison]]
    /// Ours beside the sealed floor (``SealedFloorStore``: the guarantees' minimum work), by size and phase.
    var sealed_floor: [String: [String: Comparison]]? = nil
    var peak_rss_mb: Double
    var unlock_ms: Double
    var unlock_cost: String
    /// `security find-generic-password -w` as a whole process, median ms (absent when `security` is not built).
    var cli_find_ms: Double?
    /// Its floor: a C program that opens the same keychain's SQLite file and reads one row, median ms.
    var cli_floor_ms: Double?
    var file_mib: Int?
    var file_directory: String?
    var file_protect: FileProtectionBench.Throughput?
    var file_unprotect: FileProtectionBench.Throughput?
    /// keychaind beside the embedded engine and the floor (absent when no `keychaind` is built or `--no-daemon`).
    var daemon: DaemonBench.Report?
    /// Three devices converging after `--sync-changes` changes each (absent with `--sync-changes 0`).
    var sync: SyncBench.Report?
    /// Key operations through the key layer beside libcrypto directly (the keys issue's figures).
    var keys: [KeyBench.Result]?
    /// A P-256 signature by a key in the TPM (swtpm, unless `KEYCHAIN_TPM` names one) beside a software key's.
    var tpm_key: TPMKeyBench.Result?
    /// Backup and restore beside secretstream's floor, with each one's peak RSS (issue 27).
    var backup: BackupBench.Report?
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
var fileMegabytes = 256
var measuresDaemon = true
var syncChanges = 1000
var onlyDaemon = false
var onlyDaemonKeys = false
var profilePhase: String?
var onlyTPM = false
var onlyBackup = false
var onlySync = false
var onlyItems = false
var backupSizes = [10_000, 100_000]
if CommandLine.arguments.dropFirst().first == "--backup-child" {
    BackupBench.runChild(Array(CommandLine.arguments.dropFirst(2)))
}
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--json": json = true
    case "--sizes":
        guard let list = arguments.popFirst() else { break }
        sizes = list.split(separator: ",").compactMap { Int($0) }
    case "--file-mib":
        fileMegabytes = arguments.popFirst().flatMap { Int($0) } ?? fileMegabytes
    case "--no-daemon": measuresDaemon = false
    case "--sync-changes":
        syncChanges = arguments.popFirst().flatMap { Int($0) } ?? syncChanges
    case "--only-daemon": onlyDaemon = true
    case "--only-daemon-keys": onlyDaemonKeys = true
    case "--profile":
        profilePhase = arguments.popFirst() ?? ""
    case "--only-tpm": onlyTPM = true
    case "--only-backup": onlyBackup = true
    case "--only-sync": onlySync = true
    case "--only-items": onlyItems = true
    case "--backup-sizes":
        guard let list = arguments.popFirst() else { break }
        backupSizes = list.split(separator: ",").compactMap { Int($0) }
    default:
        FileHandle.standardError.write(
            Data(
                ("usage: keychain-bench [--json] [--sizes 1000,10000,100000] [--file-mib 256] [--no-daemon] "
                    + "[--only-daemon] [--only-daemon-keys] [--profile find|batch_add|add|update|sign|daemon_sign|daemon_add|daemon_add8] [--only-tpm] [--sync-changes 1000] [--only-backup] [--only-sync] [--only-items] [--backup-sizes 10000,100000]\n")
                    .utf8))
        exit(2)
    }
}

do {
    if let profilePhase {
        try ProfileLoop.run(profilePhase)
        exit(0)
    }
    if onlyTPM {
        // The TPM's figures alone (a quick check on swtpm or the TPM KEYCHAIN_TPM names).
        for line in TPMKeyBench.lines(try TPMKeyBench.run()) { print(line) }
        exit(0)
    }
    if onlyBackup {
        for line in BackupBench.lines(try BackupBench.run(sizes: backupSizes), sizes: backupSizes) { print(line) }
        exit(0)
    }
    if onlySync {
        // The sync figures alone (issue 23's converge time and bytes per version), human-readable.
        for line in SyncBench.lines(try SyncBench.run(changes: max(1, syncChanges))) { print(line) }
        exit(0)
    }
    if onlyDaemonKeys {
        // Stored keys through keychaind beside the embedded engine, and the round trip (issue 24's latency).
        let report = try DaemonBench.runKeysOnly()
        print(ReportTable.daemonKeysOnly(report))
        exit(0)
    }
    if onlyDaemon {
        let embeddedCLI = try CLIBench.medianFindMilliseconds()
        let daemon = try DaemonBench.run(items: 10_000, seed: UInt64.random(in: 1...UInt64.max))
        print(ReportTable.daemonOnly(daemon, embeddedCLI: embeddedCLI))
        exit(0)
    }
    var results: [String: [String: Comparison]] = [:]
    var sealedFloor: [String: [String: Comparison]] = [:]
    for count in sizes {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = UInt64.random(in: 1...UInt64.max)
        if !json { FileHandle.standardError.write(Data("running \(count) items…\n".utf8)) }
        let phases = try ItemWorkload.run(
            ours: EngineStore(directory: directory), floor: FloorStore(directory: directory),
            sealedFloor: SealedFloorStore(directory: directory), count: count, seed: seed)
        results[String(count)] = phases.floor
        sealedFloor[String(count)] = phases.sealedFloor
    }
    let peak = peakResidentMegabytes()
    if onlyItems {
        // The item phases alone, beside their floor (a quick loop while working on the storage layout).
        let report = Report(
            results: results, sealed_floor: sealedFloor, peak_rss_mb: peak, unlock_ms: 0, unlock_cost: "not measured")
        print(ReportTable(report: report, sizes: sizes).text)
        exit(0)
    }
    let cli = try CLIBench.medianFindAndFloorMilliseconds()
    var report = Report(
        results: results, sealed_floor: sealedFloor, peak_rss_mb: peak, unlock_ms: try measureUnlock(),
        unlock_cost: "\(PasscodeCost.standard)",
        cli_find_ms: cli?.find, cli_floor_ms: cli?.floor)
    if fileMegabytes > 0 {
        if !json { FileHandle.standardError.write(Data("running protected files of \(fileMegabytes) MiB…\n".utf8)) }
        let files = try FileProtectionBench.run(megabytes: fileMegabytes)
        report.file_mib = files.file_mib
        report.file_directory = files.directory
        report.file_protect = files.protect
        report.file_unprotect = files.unprotect
    }
    if measuresDaemon {
        let items = min(10_000, sizes.max() ?? 10_000)
        if !json { FileHandle.standardError.write(Data("running keychaind with \(items) items…\n".utf8)) }
        report.daemon = try DaemonBench.run(items: max(1, items), seed: UInt64.random(in: 1...UInt64.max))
    }
    if !json { FileHandle.standardError.write(Data("running key operations…\n".utf8)) }
    report.keys = try KeyBench.run()
    report.tpm_key = try TPMKeyBench.run()
    if syncChanges > 0 {
        if !json {
            FileHandle.standardError.write(Data("running sync: 3 devices, \(syncChanges) changes each…\n".utf8))
        }
        report.sync = try SyncBench.run(changes: syncChanges)
    }
    if !backupSizes.isEmpty {
        if !json { FileHandle.standardError.write(Data("running backup and restore…\n".utf8)) }
        report.backup = try BackupBench.run(sizes: backupSizes)
    }
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    } else {
        print(ReportTable(report: report, sizes: sizes).text)
        if let sync = report.sync {
            for line in SyncBench.lines(sync) { print(line) }
        }
        for key in report.keys ?? [] {
            let ratio = key.floor_p50_us > 0 ? key.ours_p50_us / key.floor_p50_us : 0
            // The target (≥ 0.9× the floor's speed) is for private-key operations; the others are shown beside.
            let isPrivate = ["sign", "decrypt", "ECDH"].contains { key.operation.contains($0) }
            let verdict = isPrivate ? (ratio <= 1.11 ? " (≤ 1.11) — met" : " (≤ 1.11) — MISSED") : ""
            print(
                String(
                    format: "key %@: p50 %.1f µs beside libcrypto directly %.1f µs: %.2f× the floor's time%@",
                    key.operation, key.ours_p50_us, key.floor_p50_us, ratio, verdict))
        }
        for line in TPMKeyBench.lines(report.tpm_key) { print(line) }
        if let backup = report.backup {
            for line in BackupBench.lines(backup, sizes: backupSizes) { print(line) }
        }
    }
} catch {
    FileHandle.standardError.write(Data("keychain-bench: \(error)\n".utf8))
    exit(1)
}
