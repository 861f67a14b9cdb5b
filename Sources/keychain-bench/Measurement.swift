import Foundation

/// Latencies of one phase: every operation timed on the monotonic clock.
struct LatencyRecorder {
    private(set) var samples: [UInt64] = []
    /// Time spent outside the timed operations that still belongs to the phase (a batch's commit).
    var extraNanoseconds: UInt64 = 0

    init(capacity: Int) {
        samples.reserveCapacity(capacity)
    }

    /// Times one operation.
    mutating func time<Result>(_ body: () throws -> Result) rethrows -> Result {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        samples.append(DispatchTime.now().uptimeNanoseconds - start)
        return result
    }

    /// Records a latency measured by the caller.
    mutating func record(_ nanoseconds: UInt64) {
        samples.append(nanoseconds)
    }

    /// p50, p99 and throughput.
    var figures: Figures {
        let sorted = samples.sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1000
        }
        let total = Double(samples.reduce(0, +) + extraNanoseconds) / 1e9
        return Figures(
            p50_us: percentile(0.5), p99_us: percentile(0.99), ops_per_s: total > 0 ? Double(samples.count) / total : 0)
    }
}

/// The figures of a phase, named as in the JSON report.
struct Figures: Codable {
    var p50_us: Double
    var p99_us: Double
    var ops_per_s: Double
}

/// Our figures beside the floor's.
struct Comparison: Codable {
    var ours: Figures
    var floor: Figures

    /// ours p50 / floor p50.
    var p50Ratio: Double { floor.p50_us > 0 ? ours.p50_us / floor.p50_us : 0 }
    /// floor throughput / our throughput (how many times slower we are).
    var throughputRatio: Double { ours.ops_per_s > 0 ? floor.ops_per_s / ours.ops_per_s : 0 }
}

/// The process's peak resident set (VmHWM) in MiB.
func peakResidentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kilobytes / 1024
    }
    return 0
}
