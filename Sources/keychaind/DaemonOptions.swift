import Foundation
import KeychainCore

/// `keychaind --state-directory DIR --socket PATH [--idle-lock SECONDS] [--passcode-cost minimum]`.
struct DaemonOptions {
    var stateDirectory: URL
    var socketPath: String?
    var idleLock: TimeInterval?
    var passcodeCost = PasscodeCost.standard
    /// A file holding the current time (Unix seconds), read at every use instead of the system clock: tests move
    /// it to cross passcode waits.
    var clockFile: String?

    static let usage = """
        usage: keychaind --state-directory DIR [--socket PATH] [--idle-lock SECONDS] [--passcode-cost minimum]

          --state-directory DIR  where every user's keychain lives (DIR/users/<uid>/) and the app registry
          --socket PATH          the socket to listen on (mode 0666); without it, the socket systemd passes
                                 (LISTEN_FDS), else /run/swift-keychain/keychaind.sock
          --idle-lock SECONDS    lock a user's keychain after this long without a request (default: never)
          --passcode-cost minimum  the cheapest Argon2id cost for new passcodes (tests only)
          --clock FILE           read the time from FILE (Unix seconds) instead of the system clock (tests only)
        """

    /// Parses the arguments; a message naming the offending one when they are wrong.
    static func parse(_ arguments: [String]) throws(EngineError) -> DaemonOptions {
        var state: String?
        var options = DaemonOptions(stateDirectory: URL(fileURLWithPath: "/"))
        var index = 0
        func value(of flag: String) throws(EngineError) -> String {
            index += 1
            guard index < arguments.count else { throw EngineError(.param, "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--state-directory": state = try value(of: flag)
            case "--socket": options.socketPath = try value(of: flag)
            case "--idle-lock":
                let text = try value(of: flag)
                guard let seconds = TimeInterval(text), seconds > 0 else {
                    throw EngineError(.param, "--idle-lock \(text) is not a positive number of seconds")
                }
                options.idleLock = seconds
            case "--clock": options.clockFile = try value(of: flag)
            case "--passcode-cost":
                let text = try value(of: flag)
                guard text == "minimum" else { throw EngineError(.param, "--passcode-cost \(text): only minimum") }
                options.passcodeCost = .minimum
            case "-h", "--help":
                throw EngineError(.param, usage)
            default:
                throw EngineError(.param, "unknown argument \(flag)\n\(usage)")
            }
            index += 1
        }
        guard let state, !state.isEmpty else { throw EngineError(.param, "--state-directory is required\n\(usage)") }
        options.stateDirectory = URL(fileURLWithPath: state, isDirectory: true)
        return options
    }
}
