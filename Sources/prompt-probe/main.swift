// prompt-probe: asks for a secret with one of KeychainCore's prompters, as a program of its own would, so the
// tests can give it a pseudo-terminal as its controlling terminal (or none) and a fake pinentry.
//
//     prompt-probe system|terminal|pinentry [--kind passcode|application-password] [--prompt TEXT]
//                  [--program NAME] [--cancel TITLE] [--attempt N] [--key HEX] [--timeout SECONDS]
//                  [--ignore SIGNAL] [--count SIGNAL]
//
// `--ignore` sets SIGNAL (a number) to be ignored before asking; `--count` gives it a handler that counts it
// (the outcome then has "signals": how many arrived), as a program with handlers of its own would.
//
// The outcome is one JSON line on standard output: {"outcome": "entered", "length": N, "hash": HEX},
// {"outcome": "canceled"} or {"outcome": "unavailable", "reason": TEXT}. The secret itself is never printed:
// `hash` is its keyed BLAKE2b under the 32-byte `--key` (hexadecimal), which the test computes for the secret it
// typed. Exit status 0 unless the arguments are malformed (then 2).
//
//     prompt-probe unlock --keychain DIRECTORY|--socket PATH --account ACCOUNT
//
// asks for the keychain passcode (the system prompter: terminal, else pinentry), unlocks the keychain with it
// (embedded in DIRECTORY, or keychaind at PATH), then reads ACCOUNT's data through the authentication loop, whose
// prompt asks again; prints {"outcome": "unlocked", "length": N} (the data's length) or {"outcome": "failed",
// "reason": TEXT}, releases everything, and waits for a line on standard input before it exits: the tests look
// for the passcode in its memory meanwhile.

import Foundation
import KeychainClient
import KeychainCore
import KeychainPrompts
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How many signals the `--count` handler saw.
enum SignalCount {
    static let seen = Atomic<Int>(0)
}

func usage(_ why: String) -> Never {
    FileHandle.standardError.write(Data("prompt-probe: \(why) (see the comment at the top of main.swift)\n".utf8))
    exit(2)
}

func emit(_ fields: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func bytes(fromHex hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
            return nil
        }
        bytes.append(byte)
    }
    return bytes
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else { usage("no prompter named") }
let mode = arguments.removeFirst()
var request = SecretPromptRequest(callingProgram: "prompt-probe")
var key = [UInt8](repeating: 0, count: 32)
var timeout = PinentryPrompter.defaultTimeout
var keychainDirectory: String?
var socketPath: String?
var account = "probe"
while !arguments.isEmpty {
    let option = arguments.removeFirst()
    guard !arguments.isEmpty else { usage("\(option) needs a value") }
    let value = arguments.removeFirst()
    switch option {
    case "--kind":
        switch value {
        case "passcode": request.kind = .passcode
        case "application-password": request.kind = .applicationPassword
        default: usage("--kind is passcode or application-password, not \(value)")
        }
    case "--prompt": request.operationPrompt = value
    case "--keychain": keychainDirectory = value
    case "--socket": socketPath = value
    case "--account": account = value
    case "--program": request.callingProgram = value
    case "--cancel": request.cancelTitle = value
    case "--attempt":
        guard let attempt = Int(value), attempt >= 1 else { usage("--attempt is a number from 1, not \(value)") }
        request.attempt = attempt
    case "--key":
        guard let parsed = bytes(fromHex: value), parsed.count == 32 else { usage("--key is 32 bytes in hexadecimal") }
        key = parsed
    case "--ignore", "--count":
        guard let number = Int32(value), number > 0 else { usage("\(option) takes a signal number, not \(value)") }
        if option == "--ignore" {
            signal(number, SIG_IGN)
        } else {
            signal(number) { _ in SignalCount.seen.add(1, ordering: .relaxed) }
        }
    case "--timeout":
        guard let seconds = Double(value), seconds > 0 else { usage("--timeout is a number of seconds, not \(value)") }
        timeout = .milliseconds(Int(seconds * 1000))
    default: usage("unknown option \(option)")
    }
}

/// The prompt-to-Argon2id path of a program: the passcode asked for, the keychain unlocked with it, and an item
/// that needs it read through the authentication loop, every value released before the test looks.
func unlockAndRead(_ backend: any KeychainBackend, account: String) {
    // The outcome is printed only once `read` has returned and released the passcode and the loop's copy of it: the
    // test looks at this process's memory as soon as it reads the line (printing inside would race the release).
    emit(read(backend, account: account))
}

/// Unlocks with the passcode asked for and reads the item; the line to print.
func read(_ backend: any KeychainBackend, account: String) -> [String: Any] {
    let caller = Caller(applicationIdentifier: "probe", accessGroups: ["probe"])
    do throws(EngineError) {
        let passcode = try AuthenticationContext().ask(.passcode, reason: "unlock for the probe", attempt: 1)
        try backend.unlock(passcode: passcode)
        let query = ItemQuery(itemClass: .genericPassword, attributes: [.account: .string(account)], returning: .data)
        let items = try AuthenticationLoop.perform(AuthenticationLoop.Options(), backend: backend) {
            (authentication) throws(EngineError) -> [Item] in
            var query = query
            query.authentication = authentication
            return try backend.copyMatching(query, for: caller)
        }
        return ["outcome": "unlocked", "length": items.first?.data?.count ?? -1]
    } catch {
        return ["outcome": "failed", "reason": error.message]
    }
}

if mode == "unlock" {
    do throws(EngineError) {
        let backend: any KeychainBackend =
            if let socketPath { DaemonClient(socketPath: socketPath) } else {
                try Engine(storage: .directory(URL(fileURLWithPath: keychainDirectory ?? "keychain")))
            }
        unlockAndRead(backend, account: account)
    } catch {
        emit(["outcome": "failed", "reason": error.message])
    }
    _ = readLine()
    exit(0)
}

let prompter: any SecretPrompter
switch mode {
case "system": prompter = SystemPrompter()
case "terminal": prompter = TerminalPrompter()
case "pinentry": prompter = PinentryPrompter(timeout: timeout)
default: usage("the prompter is system, terminal or pinentry, not \(mode)")
}

switch prompter.ask(request) {
case .entered(let secret):
    do {
        let hash = try secret.withUnsafeBytes { bytes throws(EngineError) in
            try KeyedHash.hash(bytes, key: SecretKey(copying: key))
        }
        emit(["outcome": "entered", "length": secret.count, "hash": hash.hexText()])
    } catch {
        emit(["outcome": "unavailable", "reason": "cannot hash the secret: \(error.message)"])
    }
case .canceled: emit(["outcome": "canceled", "signals": SignalCount.seen.load(ordering: .relaxed)])
case .unavailable(let reason): emit(["outcome": "unavailable", "reason": reason])
}
