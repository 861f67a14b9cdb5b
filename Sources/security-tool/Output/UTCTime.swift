import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A date's calendar fields in UTC, for the two ways the tool prints dates. Computed with `gmtime_r`, so no
/// formatter or time-zone database is loaded at startup.
struct UTCTime {
    private var fields = tm()

    /// The UTC fields of `date` (to the second).
    init(date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        gmtime_r(&seconds, &fields)
    }

    /// `20260130142501Z`: macOS's timedate attribute.
    var compact: String {
        pad(Int(fields.tm_year) + 1900, 4) + pad(Int(fields.tm_mon) + 1) + pad(Int(fields.tm_mday))
            + pad(Int(fields.tm_hour)) + pad(Int(fields.tm_min)) + pad(Int(fields.tm_sec)) + "Z"
    }

    /// `2026-01-30T14:25:01Z`: ISO 8601, for JSON.
    var iso8601: String {
        pad(Int(fields.tm_year) + 1900, 4) + "-" + pad(Int(fields.tm_mon) + 1) + "-" + pad(Int(fields.tm_mday)) + "T"
            + pad(Int(fields.tm_hour)) + ":" + pad(Int(fields.tm_min)) + ":" + pad(Int(fields.tm_sec)) + "Z"
    }

    private func pad(_ value: Int, _ width: Int = 2) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
