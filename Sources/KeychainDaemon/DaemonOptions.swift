import Foundation
import KeychainCore

/// keychaind's command line (``usage``): where it keeps the keychains and listens, and the limits that keep one
/// user from denying the daemon to the others (``UserLimits``).
package struct DaemonOptions {
    package var stateDirectory: URL
    package var socketPath: String?
    package var idleLock: TimeInterval?
    package var passcodeCost = PasscodeCost.standard
    /// A file holding the current time (Unix seconds), read at every use instead of the system clock: tests move
    /// it to cross passcode waits.
    package var clockFile: String?
    /// How many connections one user may hold open at once; more are refused.
    package var connectionsPerUser = 128
    /// How many of one user's requests are carried out at once; the others wait their turn.
    package var requestsPerUser = 8
    /// How many of one user's passcodes are stretched (Argon2id) at once.
    package var passcodeChecksPerUser = 1
    /// How many passcodes are stretched at once in all (each takes the passcode cost's memory).
    package var passcodeChecks = 4
    /// How long a new connection has to say hello.
    package var handshakeTimeout: TimeInterval = 5
    /// How long a connection may wait between requests before it is closed (a subscription is exempt).
    package var idleTimeout: TimeInterval = 60
    /// The most items one user's keychain may hold.
    package var itemsPerUser = 100_000
    /// The most bytes one user's keychain may take (its database pages in use).
    package var bytesPerUser = 256 << 20
    /// ``bytesPerUser`` as it was given, for messages (`256M`).
    package var bytesPerUserText = "256M"
    /// `--sync-drop-in`: print the systemd drop-in for the sync stores (``SyncDropIn``) and exit.
    package var printsSyncDropIn = false
    /// `--store URL`: stores the drop-in opens besides those the keychains are set up with.
    package var syncStores: [String] = []

    package static let usage = """
        usage: keychaind --state-directory DIR [--socket PATH] [--idle-lock SECONDS] [limits…]

          --state-directory DIR  where every user's keychain lives (DIR/users/<uid>/) and the app registry
          --socket PATH          the socket to listen on (mode 0666); without it, the socket systemd passes
                                 (LISTEN_FDS), else /run/swift-keychain/keychaind.sock
          --idle-lock SECONDS    lock a user's keychain after this long without a request (default: never)
          --passcode-cost COST   the Argon2id cost of new passcodes: standard (192 MiB × 3 passes, the default),
                                 MIBxPASSES (64x2), or minimum (tests only)
          --clock FILE           read the time from FILE (Unix seconds) instead of the system clock (tests only)

        limits, per user (the uid of the process that opened the connection):
          --max-connections-per-user N      open connections (default 128); more are refused
          --max-requests-per-user N         requests carried out at once (default 8); more wait their turn
          --max-passcode-checks-per-user N  passcodes stretched at once (default 1); more wait their turn
          --max-passcode-checks N           passcodes stretched at once by all users (default 4)
          --handshake-timeout SECONDS       a new connection's time to say hello (default 5)
          --idle-timeout SECONDS            a connection's time between requests before it is closed (default 60)
          --max-items-per-user N            items in a user's keychain (default 100000)
          --max-bytes-per-user SIZE         bytes a user's keychain takes, K, M or G allowed (default 256M)

        usage: keychaind --sync-drop-in [--state-directory DIR] [--store URL]…
          prints the systemd drop-in (keychaind.service.d/sync.conf) that opens exactly what the sync stores of the
          keychains in DIR (default /var/lib/swift-keychain), and each --store URL, need under keychaind.service
        """

    /// Parses the arguments; a message naming the offending one when they are wrong.
    package static func parse(_ arguments: [String]) throws(EngineError) -> DaemonOptions {
        var state: String?
        var options = DaemonOptions(stateDirectory: URL(fileURLWithPath: "/"))
        var index = 0
        func value(of flag: String) throws(EngineError) -> String {
            index += 1
            guard index < arguments.count else { throw EngineError(.param, "\(flag) needs a value") }
            return arguments[index]
        }
        func count(of flag: String) throws(EngineError) -> Int {
            let text = try value(of: flag)
            guard let number = Int(text), number > 0 else {
                throw EngineError(.param, "\(flag) \(text) is not a positive whole number")
            }
            return number
        }
        func seconds(of flag: String) throws(EngineError) -> TimeInterval {
            let text = try value(of: flag)
            guard let seconds = TimeInterval(text), seconds > 0, seconds.isFinite else {
                throw EngineError(.param, "\(flag) \(text) is not a positive number of seconds")
            }
            return seconds
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--state-directory": state = try value(of: flag)
            case "--socket": options.socketPath = try value(of: flag)
            case "--idle-lock": options.idleLock = try seconds(of: flag)
            case "--clock": options.clockFile = try value(of: flag)
            case "--passcode-cost": options.passcodeCost = try passcodeCost(try value(of: flag))
            case "--max-connections-per-user": options.connectionsPerUser = try count(of: flag)
            case "--max-requests-per-user": options.requestsPerUser = try count(of: flag)
            case "--max-passcode-checks-per-user": options.passcodeChecksPerUser = try count(of: flag)
            case "--max-passcode-checks": options.passcodeChecks = try count(of: flag)
            case "--handshake-timeout": options.handshakeTimeout = try seconds(of: flag)
            case "--idle-timeout": options.idleTimeout = try seconds(of: flag)
            case "--max-items-per-user": options.itemsPerUser = try count(of: flag)
            case "--max-bytes-per-user":
                options.bytesPerUserText = try value(of: flag)
                options.bytesPerUser = try byteCount(options.bytesPerUserText, flag: flag)
            case "--sync-drop-in": options.printsSyncDropIn = true
            case "--store": options.syncStores.append(try value(of: flag))
            case "-h", "--help":
                throw EngineError(.param, usage)
            default:
                throw EngineError(.param, "unknown argument \(flag)\n\(usage)")
            }
            index += 1
        }
        let stateDirectory = state ?? (options.printsSyncDropIn ? "/var/lib/swift-keychain" : nil)
        guard let stateDirectory, !stateDirectory.isEmpty else {
            throw EngineError(.param, "--state-directory is required\n\(usage)")
        }
        options.stateDirectory = URL(fileURLWithPath: stateDirectory, isDirectory: true)
        return options
    }

    /// A number of seconds as the options take it: `5`, `0.5`.
    package static func text(seconds: TimeInterval) -> String {
        seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    /// `standard`, `minimum`, or `MIBxPASSES`.
    private static func passcodeCost(_ text: String) throws(EngineError) -> PasscodeCost {
        switch text {
        case "standard": return .standard
        case "minimum": return .minimum
        default:
            let parts = text.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let mebibytes = Int(parts[0]), let passes = UInt64(parts[1]),
                (1...4096).contains(mebibytes), (1...64).contains(passes)
            else {
                throw EngineError(
                    .param,
                    "--passcode-cost \(text): standard, minimum, or MIBxPASSES such as 64x2 (1 to 4096 MiB, 1 to 64 passes)"
                )
            }
            return PasscodeCost(passes: passes, memoryBytes: mebibytes << 20)
        }
    }

    /// A size in bytes, with an optional binary suffix: `1048576`, `512K`, `256M`, `1G`.
    private static func byteCount(_ text: String, flag: String) throws(EngineError) -> Int {
        let shifts: [Character: Int] = ["K": 10, "M": 20, "G": 30]
        let shift = text.last.flatMap { shifts[Character($0.uppercased())] }
        let digits = shift == nil ? Substring(text) : text.dropLast()
        guard let number = Int(digits), number > 0, number <= Int.max >> (shift ?? 0) else {
            throw EngineError(.param, "\(flag) \(text) is not a size in bytes (a whole number, K, M or G allowed)")
        }
        return number << (shift ?? 0)
    }
}
