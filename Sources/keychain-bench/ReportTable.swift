import Foundation

/// The report as a readable table: our figures beside the floor's, with ratios and the targets.
struct ReportTable {
    var report: Report
    var sizes: [Int]

    private func format(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// A target's verdict.
    private func check(_ ok: Bool) -> String { ok ? "met" : "MISSED" }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    var text: String {
        var lines: [String] = []
        let header = [
            "phase", "ours p50 µs", "floor p50 µs", "ratio", "ours p99 µs", "floor p99 µs", "ours ops/s", "floor ops/s",
        ]
        let widths = [16, 12, 13, 7, 12, 13, 11, 12]
        for count in sizes {
            guard let phases = report.results[String(count)] else { continue }
            lines.append("")
            lines.append("\(count) items")
            lines.append(zip(header, widths).map { pad($0, $1) }.joined(separator: " "))
            for phase in ItemWorkload.phases {
                guard let row = phases[phase] else { continue }
                let cells = [
                    phase, format(row.ours.p50_us), format(row.floor.p50_us), format(row.p50Ratio, 2) + "×",
                    format(row.ours.p99_us), format(row.floor.p99_us), format(row.ours.ops_per_s, 0),
                    format(row.floor.ops_per_s, 0),
                ]
                lines.append(zip(cells, widths).map { pad($0, $1) }.joined(separator: " "))
            }
        }
        lines.append(contentsOf: sealedFloorLines)
        lines.append(contentsOf: fileLines)
        lines.append(contentsOf: daemonLines)
        lines.append("")
        lines.append(contentsOf: targets)
        lines.append(contentsOf: daemonTargets)
        return lines.joined(separator: "\n")
    }

    /// Each size's phases beside the sealed floor (the least work that keeps the engine's guarantees): ours beside
    /// it is the engine's own overhead, it beside the plain floor the price of the guarantees. No target: the
    /// owners' measure for restating issue 23's.
    private var sealedFloorLines: [String] {
        var lines: [String] = []
        let header = ["phase", "ours p50 µs", "sealed p50 µs", "ours/sealed", "sealed/floor"]
        let widths = [16, 12, 14, 12, 13]
        for count in sizes {
            guard let phases = report.sealed_floor?[String(count)], let plain = report.results[String(count)] else {
                continue
            }
            lines.append("")
            lines.append("\(count) items beside the sealed floor (the floor plus the guarantees' least work)")
            lines.append(zip(header, widths).map { pad($0, $1) }.joined(separator: " "))
            for phase in ItemWorkload.phases {
                guard let row = phases[phase], let floor = plain[phase]?.floor.p50_us, floor > 0 else { continue }
                let cells = [
                    phase, format(row.ours.p50_us), format(row.floor.p50_us), format(row.p50Ratio, 2) + "×",
                    format(row.floor.p50_us / floor, 2) + "×",
                ]
                lines.append(zip(cells, widths).map { pad($0, $1) }.joined(separator: " "))
            }
        }
        return lines
    }

    /// The issue's targets, each with its measured value.
    private var targets: [String] {
        var lines = ["targets:"]
        let measured = sizes.filter { report.results[String($0)] != nil }.sorted()
        func ratios(_ phase: String) -> [Double] {
            measured.compactMap { report.results[String($0)]?[phase]?.p50Ratio }
        }
        func listed(_ values: [Double]) -> String {
            zip(measured, values).map { "\(format($1, 2))× at \($0)" }.joined(separator: ", ")
        }
        // Issue 23's targets for the embedded engine beside the plain-SQLite floor, at every size.
        for (phase, name, bound) in [("find", "find", 1.5), ("update", "update", 1.3), ("batch_add", "batch add", 1.5)]
        {
            let values = ratios(phase)
            guard !values.isEmpty else { continue }
            let met = check(values.allSatisfy { $0 <= bound })
            lines.append(
                "  \(name) p50 within \(format(bound, 1))× the floor at every size: \(listed(values)) — \(met)")
        }
        if let largest = measured.last, let smallest = measured.first, largest != smallest,
            let big = report.results[String(largest)]?["find"], let small = report.results[String(smallest)]?["find"]
        {
            // Raw, and divided by the floor's own change (which sizes alone cannot explain: the machine's noise).
            let flatness = big.ours.p50_us / small.ours.p50_us
            let relative = flatness / (big.floor.p50_us / small.floor.p50_us)
            lines.append(
                "  find p50 at \(largest) vs \(smallest): \(format(flatness, 2))× (≤ 1.2; \(format(relative, 2))× "
                    + "beside the floor's own change) — \(check(flatness <= 1.2))")
        }
        let add = ratios("add")
        if !add.isEmpty {
            lines.append(
                "  durable add p50 within 1.3× the floor at every size: \(listed(add)) — \(check(add.allSatisfy { $0 <= 1.3 }))"
            )
        }
        lines.append("  peak RSS: \(format(report.peak_rss_mb)) MiB (< 64) — \(check(report.peak_rss_mb < 64))")
        let unlockOK = report.unlock_ms >= 200 && report.unlock_ms <= 600
        lines.append(
            "  unlock (\(report.unlock_cost)): \(format(report.unlock_ms, 0)) ms (200–600) — \(check(unlockOK))")
        if let cli = report.cli_find_ms {
            lines.append(
                "  security find-generic-password -w, whole process: \(format(cli, 2)) ms (≤ 5) — \(check(cli <= 5))")
            if let floor = report.cli_floor_ms, floor > 0 {
                lines.append(
                    "  … \(format(cli / floor, 2))× the whole-process floor (C: open the SQLite file, read one row: "
                        + "\(format(floor, 2)) ms) (≤ 1.5) — \(check(cli / floor <= 1.5))")
            }
        } else {
            lines.append("  security find-generic-password -w: not measured (no release `security` beside the bench)")
        }
        for (name, row) in [("protect", report.file_protect), ("unprotect", report.file_unprotect)] {
            guard let row else { continue }
            lines.append(
                "  file \(name) at least 70% of the secretstream floor: \(format(row.ratio * 100, 0))% — "
                    + check(row.ratio >= 0.7))
        }
        return lines
    }

    /// Only keychaind's rows and targets (`--only-daemon`), with the embedded `security` beside the daemon's.
    static func daemonOnly(_ daemon: DaemonBench.Report?, embeddedCLI: Double?) -> String {
        let report = Report(
            results: [:], peak_rss_mb: 0, unlock_ms: 0, unlock_cost: "", cli_find_ms: embeddedCLI, daemon: daemon)
        let table = ReportTable(report: report, sizes: [])
        var lines = table.daemonLines + ["", "targets:"] + table.daemonTargets
        if let embeddedCLI {
            lines.append(
                "  (embedded security find-generic-password -w, whole process: \(table.format(embeddedCLI, 2)) ms)")
        }
        return lines.joined(separator: "\n")
    }

    /// The stored keys' operations through keychaind beside the embedded engine's, and the round trip
    /// (`--only-daemon-keys`).
    static func daemonKeysOnly(_ figures: (roundTrip: Double, keys: [String: Comparison])?) -> String {
        guard let figures else { return "no keychaind built beside the bench" }
        let table = ReportTable(
            report: Report(results: [:], peak_rss_mb: 0, unlock_ms: 0, unlock_cost: "", cli_find_ms: nil), sizes: [])
        let trip = "  round trip (ping), p50: \(table.format(figures.roundTrip, 1)) µs"
        return ([trip] + table.storedKeyLines(figures.keys)).joined(separator: "\n")
    }

    /// One line per stored key operation, the P-256 signature with its target (within 50 µs of embedded).
    private func storedKeyLines(_ keys: [String: Comparison]) -> [String] {
        keys.sorted(by: { $0.key < $1.key }).map { name, figures in
            let text =
                "  stored key, \(name), p50: keychaind \(format(figures.ours.p50_us, 1)) µs beside embedded "
                + "\(format(figures.floor.p50_us, 1)) µs (+\(format(figures.ours.p50_us - figures.floor.p50_us, 1)))"
            guard name == "P-256 sign" else { return text }
            return text + " (within 50 µs) — \(check(figures.ours.p50_us <= figures.floor.p50_us + 50))"
        }
    }

    /// keychaind's rows: each beside what it is compared with (the embedded engine for find, the one-writer floor
    /// for durable add).
    private var daemonLines: [String] {
        guard let daemon = report.daemon else { return [] }
        let widths = [26, 12, 12, 12, 12]
        func row(_ name: String, _ figures: Figures) -> String {
            let cells = [name, format(figures.p50_us), format(figures.p99_us), format(figures.ops_per_s, 0)]
            return zip(cells, widths).map { pad($0, $1) }.joined(separator: " ")
        }
        return [
            "",
            "keychaind, \(daemon.items) items (8 clients: 8 threads, a connection each; ops/s of all together)",
            zip(["phase", "p50 µs", "p99 µs", "ops/s"], widths).map { pad($0, $1) }.joined(separator: " "),
            row("find, embedded", daemon.find_one_client.floor),
            row("find, daemon, 1 client", daemon.find_one_client.ours),
            row("find, daemon, 8 clients", daemon.find_eight_clients),
            row("durable add, floor 1 writer", daemon.add_one_client.floor),
            row("durable add, daemon 1", daemon.add_one_client.ours),
            row("durable add, daemon 8", daemon.add_eight_clients.ours),
        ]
    }

    /// keychaind's targets and ratios.
    private var daemonTargets: [String] {
        guard let daemon = report.daemon else {
            return ["  keychaind: not measured (no release `keychaind` beside the bench, or --no-daemon)"]
        }
        let find = daemon.find_one_client
        let embeddedRate = find.floor.ops_per_s
        let findEight = daemon.find_eight_clients
        let addEight = daemon.add_eight_clients
        let addRatio = addEight.floor.ops_per_s > 0 ? addEight.ours.ops_per_s / addEight.floor.ops_per_s : 0
        let addOne = daemon.add_one_client
        let addOneRatio = addOne.floor.ops_per_s > 0 ? addOne.ours.ops_per_s / addOne.floor.ops_per_s : 0
        let findPerClient: Double = findEight.ops_per_s / max(find.ours.ops_per_s, 1)
        let findPerEmbedded: Double = findEight.ops_per_s / max(embeddedRate, 1)
        var lines: [String] = []
        lines.append("  find through keychaind, 1 client: p50 \(format(find.p50Ratio, 2))× embedded find's")
        if let trip = daemon.round_trip_p50_us {
            let budget = find.floor.p50_us + 2 * trip
            let met: String = check(find.ours.p50_us <= budget)
            lines.append(
                "  … \(format(find.ours.p50_us, 1)) µs beside embedded find + 2 no-op round trips "
                    + "(\(format(find.floor.p50_us, 1)) + 2 × \(format(trip, 1)) = \(format(budget, 1)) µs) — \(met)")
        }
        lines += storedKeyLines(daemon.stored_keys ?? [:])
        let findEightText: String = "  find through keychaind, 8 clients together: \(format(findPerClient, 2))× "
        lines.append(findEightText + "1 client's throughput, \(format(findPerEmbedded, 2))× embedded find's")
        lines.append(
            "  durable add through keychaind, 1 client: \(format(addOneRatio, 2))× the one-writer floor's throughput")
        let addMet: String = check(addRatio >= 2)
        let addEightText: String = "  durable add through keychaind, 8 clients together: \(format(addRatio, 2))× "
        lines.append(addEightText + "the one-writer floor's throughput (≥ 2) — \(addMet)")
        if let cli = daemon.cli_find_ms {
            let met: String = check(cli <= 2.5)
            let text: String = "  security find-generic-password -w through keychaind, whole process: "
            lines.append(text + "\(format(cli, 2)) ms (≤ 2.5) — \(met)")
            if let embedded = report.cli_find_ms, embedded > 0 {
                lines.append("  … \(format(cli / embedded, 2))× the embedded `security` (\(format(embedded, 2)) ms)")
            }
        }
        if let cli = daemon.cli_find_passcode_ms {
            let met: String = check(cli <= 2.5)
            lines.append("  … on a keychain with a passcode unlocked earlier: \(format(cli, 2)) ms (≤ 2.5) — \(met)")
        }
        if let note = daemon.cli_note {
            lines.append("  security find-generic-password -w through keychaind: \(note)")
        }
        if let cli = daemon.cli_default_socket_find_ms {
            let connections = daemon.cli_default_socket_connections.map { "\($0)" } ?? "?"
            let met: String = check(daemon.cli_default_socket_connections == 1)
            lines.append(
                "  … keychaind on the default socket, no variables set: \(format(cli, 2)) ms, \(connections) "
                    + "connection(s) to the daemon (1) — \(met)")
        }
        if let note = daemon.cli_default_socket_note {
            lines.append("  … keychaind on the default socket: \(note)")
        }
        if let flood = daemon.flood {
            let added = flood.flooded_p50_ms - flood.quiet_p50_ms
            lines.append(
                "  one user's find-generic-password -w while another floods keychaind (\(flood.flood); "
                    + "\(flood.held) idle connections held, \(flood.refused) refused), \(flood.runs) runs each:")
            lines.append(
                "    quiet p50 \(format(flood.quiet_p50_ms, 2)) ms, p99 \(format(flood.quiet_p99_ms, 2)) ms; flooded p50 "
                    + "\(format(flood.flooded_p50_ms, 2)) ms, p99 \(format(flood.flooded_p99_ms, 2)) ms: "
                    + "+\(format(added, 2)) ms at p50 (≤ 100) — \(check(added <= 100))")
        }
        if let note = daemon.flood_note {
            lines.append("  one user's find-generic-password -w while another floods keychaind: \(note)")
        }
        return lines
    }

    /// Protected-file throughput beside the secretstream floor.
    private var fileLines: [String] {
        guard let megabytes = report.file_mib, let protect = report.file_protect,
            let unprotect = report.file_unprotect
        else { return [] }
        let widths = [16, 12, 13, 7]
        var lines = [
            "",
            "protected files, \(megabytes) MiB, 64 KiB chunks, fsync'd, in \(report.file_directory ?? "the temporary directory")",
            zip(["operation", "ours MB/s", "floor MB/s", "ratio"], widths).map { pad($0, $1) }.joined(separator: " "),
        ]
        for (name, row) in [("protect", protect), ("unprotect", unprotect)] {
            let cells = [name, format(row.ours_mb_s, 0), format(row.floor_mb_s, 0), format(row.ratio * 100, 0) + "%"]
            lines.append(zip(cells, widths).map { pad($0, $1) }.joined(separator: " "))
        }
        return lines
    }
}
