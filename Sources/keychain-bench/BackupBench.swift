import CSodium
import Foundation
import Keychain
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Backup and restore of a large keychain (issue 27): items/s, bytes/s and peak RSS, beside a floor measured in the
/// same run — libsodium's `crypto_secretstream_xchacha20poly1305` over the same number of messages and bytes, each
/// message framed by its length as the archive's are, written to a file with one fsync, and read back.
///
/// Each backup and each restore runs in a child process of its own (this bench, `--backup-child`), which reports its
/// own peak RSS: the `VmHWM` of its address space, read at its end. Not `wait4`'s `ru_maxrss`: a child started by
/// `posix_spawn` (a vfork) inherits at `execve` the high-water mark of the parent whose memory it shared, so that
/// figure tracks the parent that filled the keychains, not the child. The backup
/// passphrase's Argon2id runs at the cheapest cost (``PasscodeCost/minimum``): the KDF is not what is measured.
enum BackupBench {
    /// One direction at one size.
    struct Phase: Codable {
        var items: Int
        var archive_bytes: Int
        var seconds: Double
        var items_per_s: Double
        var bytes_per_s: Double
        var floor_bytes_per_s: Double
        /// ours / floor bytes/s: the target is ≥ 0.5.
        var ratio: Double
        var peak_rss_mb: Double
    }

    /// This design's floors at one size (BackupScanFloor.swift), beside secretstream's over the archive's bytes.
    struct Floors: Codable {
        var items: Int
        /// The scan floor: rows, key unwrap, AEAD open, secretstream push; no Item.
        var scan_items_per_s: Double
        /// Its bytes/s (the archive's bytes) over secretstream's push: the most a backup's ratio can reach.
        var scan_ratio: Double
        /// The engine's batch add of the same items in one transaction, no archive.
        var batch_add_items_per_s: Double
        /// Its bytes/s (the archive's bytes) over secretstream's pull: the most a restore's ratio can reach.
        var batch_add_ratio: Double
    }

    /// The figures of a run, by size.
    struct Report: Codable {
        var backup: [String: Phase]
        var restore: [String: Phase]
        var floors: [String: Floors] = [:]
        var argon2_cost: String
    }

    static let applicationIdentifier = "BENCHTEAM.backup"
    static let passphrase = "bench backup passphrase"
    /// The largest RSS(largest size) / RSS(smallest size) counted as flat.
    static let flatRatio = 1.2
    /// The floor's bytes/s share ours must reach.
    static let targetRatio = 0.5

    static func run(sizes: [Int]) throws -> Report {
        var report = Report(
            backup: [:], restore: [:],
            argon2_cost: "\(PasscodeCost.minimum.passes) pass(es) over \(PasscodeCost.minimum.memoryBytes) bytes")
        for count in sizes {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = directory.appendingPathComponent("source")
            let target = directory.appendingPathComponent("target")
            let archive = directory.appendingPathComponent("archive.skb")
            let fillSeconds = try fill(source, count: count)
            let backup = try child(["backup", source.path, archive.path, String(count)])
            let restore = try child(["restore", target.path, archive.path, String(count)])
            let bytes =
                (try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? NSNumber)?.intValue ?? 0
            let floor = try Floor.run(messages: count, bytes: bytes, in: directory)
            func phase(_ run: (seconds: Double, rss: Double), floor: Double) -> Phase {
                let rate = Double(bytes) / run.seconds
                return Phase(
                    items: count, archive_bytes: bytes, seconds: run.seconds, items_per_s: Double(count) / run.seconds,
                    bytes_per_s: rate, floor_bytes_per_s: floor, ratio: floor > 0 ? rate / floor : 0,
                    peak_rss_mb: run.rss)
            }
            report.backup[String(count)] = phase(backup, floor: floor.push)
            report.restore[String(count)] = phase(restore, floor: floor.pull)
            let scanSeconds = try ScanFloor.run(source: source, count: count, in: directory)
            report.floors[String(count)] = Floors(
                items: count, scan_items_per_s: Double(count) / scanSeconds,
                scan_ratio: floor.push > 0 ? Double(bytes) / scanSeconds / floor.push : 0,
                batch_add_items_per_s: Double(count) / fillSeconds,
                batch_add_ratio: floor.pull > 0 ? Double(bytes) / fillSeconds / floor.pull : 0)
        }
        return report
    }

    /// The report's lines, as the other figures print them: ours, the floor, the ratio, the target, met or MISSED.
    static func lines(_ report: Report, sizes: [Int]) -> [String] {
        var lines = [
            "backup/restore (backup passphrase at Argon2id's cheapest cost, \(report.argon2_cost): the KDF "
                + "is not measured; each run a child process of its own)"
        ]
        let sorted = sizes.sorted()
        for (name, phases) in [("backup", report.backup), ("restore", report.restore)] {
            for size in sorted {
                guard let phase = phases[String(size)] else { continue }
                let verdict = phase.ratio >= targetRatio ? "met" : "MISSED"
                lines.append(
                    String(
                        format: "%@ %d items: %.0f items/s, %.1f MB/s beside secretstream's %.1f MB/s over the same "
                            + "bytes: %.3f× the floor (≥ %.1f) — %@; peak RSS %.1f MiB",
                        name, size, phase.items_per_s, phase.bytes_per_s / 1e6, phase.floor_bytes_per_s / 1e6,
                        phase.ratio, targetRatio, verdict, phase.peak_rss_mb))
            }
            for size in sorted where name == "backup" {
                guard let floors = report.floors[String(size)], let phase = phases[String(size)] else { continue }
                lines.append(
                    String(
                        format: "backup scan floor %d items (SQLite rows, key unwrap, AEAD open, secretstream push; "
                            + "no Item): %.0f items/s, %.3f× the secretstream floor; backup is %.2f× of it",
                        size, floors.scan_items_per_s, floors.scan_ratio,
                        phase.items_per_s / floors.scan_items_per_s))
            }
            for size in sorted where name == "restore" {
                guard let floors = report.floors[String(size)], let phase = phases[String(size)] else { continue }
                lines.append(
                    String(
                        format: "restore batch-add floor %d items (the engine's add of the same items in one "
                            + "transaction, no archive): %.0f items/s, %.3f× the secretstream floor; restore is "
                            + "%.2f× of it",
                        size, floors.batch_add_items_per_s, floors.batch_add_ratio,
                        phase.items_per_s / floors.batch_add_items_per_s))
            }
            if let small = sorted.first, let large = sorted.last, small != large,
                let low = phases[String(small)], let high = phases[String(large)], low.peak_rss_mb > 0
            {
                let ratio = high.peak_rss_mb / low.peak_rss_mb
                lines.append(
                    String(
                        format: "%@ peak RSS %d → %d items: %.1f → %.1f MiB, %.2f× (flat: ≤ %.1f×) — %@", name, small,
                        large, low.peak_rss_mb, high.peak_rss_mb, ratio, flatRatio,
                        ratio <= flatRatio ? "met" : "MISSED"))
            }
        }
        return lines
    }

    // MARK: The keychain

    /// The caller the bench's items belong to, and its keychain on `directory`'s engine.
    static func keychain(_ directory: URL) throws -> Keychain {
        let identity = try ApplicationIdentity(applicationIdentifier: applicationIdentifier)
        return Keychain(service: "bench", backend: try Engine(storage: .directory(directory)), identity: identity)
    }

    /// A keychain of `count` migratable items (the workload's generic passwords), added in one write transaction
    /// as a restore adds them; returns the seconds the adds took (the batch-add floor, engine open excluded).
    private static func fill(_ directory: URL, count: Int) throws -> Double {
        let engine = try Engine(storage: .directory(directory))
        let caller = Caller(applicationIdentifier: applicationIdentifier)
        let start = DispatchTime.now().uptimeNanoseconds
        try engine.batch(for: caller) { (batch) throws(EngineError) in
            for index in 0..<count {
                let entry = BenchEntry(index)
                var attributes: ItemAttributes = [
                    .service: .string(entry.service), .account: .string(entry.account), .label: .string(entry.label),
                ]
                attributes[.accessible] = .string(ProtectionClass.afterFirstUnlock.rawValue)
                try batch.add(NewItem(itemClass: .genericPassword, attributes: attributes, data: entry.secret))
            }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    // MARK: The child process

    /// Runs one backup or restore as a child and returns its time and its peak RSS (both measured there).
    private static func child(_ arguments: [String]) throws -> (seconds: Double, rss: Double) {
        let executable = "/proc/self/exe"
        let output = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let result = output.appendingPathComponent("seconds").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, result, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([CommandLine.arguments[0], "--backup-child"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchError("cannot start the backup child: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError("waitpid failed: \(String(cString: strerror(errno)))") }
        }
        let text = (try? String(contentsOfFile: result, encoding: .utf8)) ?? ""
        let figures = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard status == 0, figures.count == 2 else {
            throw BenchError("the \(arguments[0]) child failed (status \(status)): \(text)")
        }
        return (figures[0], figures[1])
    }

    /// The child's side (`--backup-child backup|restore KEYCHAIN ARCHIVE COUNT`): runs it, prints its seconds and its
    /// peak RSS in MiB. `fill KEYCHAIN - COUNT` makes a keychain of COUNT items to profile the others on.
    static func runChild(_ arguments: [String]) -> Never {
        do {
            guard arguments.count == 4, let count = Int(arguments[3]) else {
                throw BenchError("usage: --backup-child backup|restore|fill KEYCHAIN ARCHIVE COUNT")
            }
            if arguments[0] == "fill" {
                // A keychain to profile a backup or restore child on (`perf record … --backup-child backup …`).
                print(try fill(URL(fileURLWithPath: arguments[1]), count: count), 0)
                exit(0)
            }
            let keychain = try keychain(URL(fileURLWithPath: arguments[1]))
            let archive = URL(fileURLWithPath: arguments[2])
            let passphrase = try Passcode(copying: Self.passphrase)
            let migratable = count
            let start = DispatchTime.now().uptimeNanoseconds
            switch arguments[0] {
            case "backup":
                let summary = try keychain.backup(to: archive, passphrase: passphrase, cost: .minimum)
                guard summary.itemCount == migratable else {
                    throw BenchError("the backup wrote \(summary.itemCount) items of \(migratable)")
                }
            case "restore":
                guard let input = FileHandle(forReadingAtPath: archive.path) else {
                    throw BenchError("cannot read \(archive.path)")
                }
                let summary = try keychain.restore(from: input, passphrase: passphrase)
                guard summary.added == migratable else {
                    throw BenchError("the restore added \(summary.added) items of \(migratable)")
                }
            default: throw BenchError("no such child: \(arguments[0])")
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            // This process's own high-water mark (its address space is its own since `execve`).
            print(seconds, peakResidentMegabytes())
            exit(0)
        } catch {
            print("\(error)")
            exit(1)
        }
    }
}
