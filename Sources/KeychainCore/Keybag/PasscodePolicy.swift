import Foundation

/// How wrong passcodes are punished: after five, an escalating wait before the next attempt (1, 5, 15, then 60
/// minutes), kept on disk so a restart does not reset it; optionally, erasing the keychain after N failures.
public enum PasscodePolicy {
    /// Failed attempts allowed before the first wait.
    public static let freeAttempts = 5
    /// The waits, in seconds, after the 5th, 6th, 7th and every later failure.
    public static let waits: [TimeInterval] = [60, 300, 900, 3600]

    /// The wait imposed after `failures` consecutive wrong passcodes.
    public static func wait(afterFailures failures: Int) -> TimeInterval {
        guard failures >= freeAttempts else { return 0 }
        return waits[min(failures - freeAttempts, waits.count - 1)]
    }
}
