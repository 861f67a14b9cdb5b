/// The names of the records in the store. Each device writes only under `devices/<its id>/`.
enum RecordName {
    /// The prefix of every device's records.
    static let devices = "devices/"

    /// A device's public identity (its join request, for a device not yet approved).
    static func identity(_ device: String) -> String { "devices/\(device)/identity" }

    /// The prefix of a device's log.
    static func logPrefix(_ device: String) -> String { "devices/\(device)/log/" }

    /// A device's log entry: sequence numbers are zero-padded, so byte order is log order.
    static func log(_ device: String, _ sequence: Int64) -> String {
        let digits = String(sequence)
        return logPrefix(device) + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    /// What a name in the store is: a device's identity, a log entry, or something else (ignored).
    enum Parsed: Equatable {
        case identity(device: String)
        case log(device: String, sequence: Int64)
    }

    /// Parses a name of the store.
    static func parse(_ name: String) -> Parsed? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "devices", isDeviceID(parts[1]) else { return nil }
        let device = String(parts[1])
        if parts.count == 3, parts[2] == "identity" { return .identity(device: device) }
        if parts.count == 4, parts[2] == "log", parts[3].count == 16, let sequence = Int64(parts[3]), sequence > 0 {
            return .log(device: device, sequence: sequence)
        }
        return nil
    }

    static func isDeviceID(_ text: Substring) -> Bool {
        text.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
