import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A progress line for long work, on the terminal only: `VERB DONE of TOTAL, RATE, TIME left`, rewritten in place on
/// standard error at most ten times a second, and erased when the work ends (whether it succeeded or not), so what
/// the verb prints afterwards starts on a clean line. Never in a pipe or a log: ``onTerminal(_:unit:)`` gives none
/// when standard error is not a terminal.
final class ProgressLine {
    /// What is counted.
    enum Unit {
        case bytes
        case items
        /// Sync records.
        case records
    }

    private let verb: String
    private let unit: Unit
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var isShown = false

    private init(verb: String, unit: Unit) {
        self.verb = verb
        self.unit = unit
    }

    /// A line for `verb`, when standard error is a terminal and the verb was not asked for JSON.
    static func onTerminal(_ verb: String, unit: Unit, json: Bool = false) -> ProgressLine? {
        guard !json, isatty(STDERR_FILENO) == 1 else { return nil }
        return ProgressLine(verb: verb, unit: unit)
    }

    /// Reports `done` of `total`; redrawn only when a tenth of a second has passed since the last drawing, or when
    /// the work is done (its last figure shown until the line is erased).
    func update(_ done: Int64, of total: Int64) {
        let now = ContinuousClock.now
        if done < total, let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        let seconds = Self.seconds(now - started)
        var text: String
        switch unit {
        case .items: text = "\(verb) \(done) of \(total) items"
        case .records: text = "\(verb) \(done) of \(total) records"
        case .bytes: text = "\(verb) \(format(done)) of \(format(total))"
        }
        if seconds > 0.05, done > 0 {
            let rate = Double(done) / seconds
            text += ", \(format(Int64(rate)))/s"
            if total > done { text += ", \(Self.duration(Double(total - done) / rate)) left" }
        }
        write("\r\u{1B}[K" + text)
        isShown = true
    }

    /// Erases the line.
    func finish() {
        guard isShown else { return }
        write("\r\u{1B}[K")
        isShown = false
    }

    deinit { finish() }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    private func format(_ count: Int64) -> String {
        switch unit {
        case .items: return "\(count) items"
        case .records: return "\(count) records"
        case .bytes:
            let units = ["B", "KiB", "MiB", "GiB", "TiB"]
            var value = Double(count)
            var index = 0
            while value >= 1024, index < units.count - 1 {
                value /= 1024
                index += 1
            }
            return index == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[index])
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }
}
