// Runs the seed's own access-control code (Seed004Code.swift, the same file the SecurityTests compile) in a
// process of its own, so a test can give it a real terminal: `seed004-probe add ACCOUNT TOKEN`,
// `seed004-probe read ACCOUNT` (the seed's retrieveToken), `seed004-probe read-skip ACCOUNT`, and
// `seed004-probe add-read ACCOUNT TOKEN` (both in one process). The keychain is the default one (`KEYCHAIN_HOME`);
// `SEED_UNLOCK_PASSCODE` unlocks it first, as a user's session has unlocked the device before an app runs, through
// a backend this process holds; `SEED_UNLOCK_WITH_KEYCHAIN` unlocks it through a temporary `Keychain` value that is
// gone before the seed's code runs. Prints one line per verb: what came back and the last status message, never a
// secret beyond the token the test chose.
import Foundation
import Keychain
import KeychainClient
import KeychainCore
import Security

let environment = ProcessInfo.processInfo.environment
// Held for the life of the process: the engine is shared with Security's calls while someone holds it.
var unlockedKeychain: (any KeychainBackend)?
if let passcode = environment["SEED_UNLOCK_PASSCODE"] {
    do {
        let backend = try KeychainBackends.backend(for: .defaultStorage())
        try backend.unlock(passcode: passcode)
        unlockedKeychain = backend
    } catch {
        print("unlock failed: \(error)")
        exit(1)
    }
}

// A new user's recipe: unlock with a `Keychain` value made for the purpose, which is released at once.
if let passcode = environment["SEED_UNLOCK_WITH_KEYCHAIN"] {
    do {
        try Keychain(service: "x").unlock(passcode: passcode)
    } catch {
        print("unlock failed: \(error)")
        exit(1)
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let verb = arguments.first, let account = arguments.dropFirst().first else {
    FileHandle.standardError.write(Data("usage: seed004-probe add|read|read-skip|add-read ACCOUNT [TOKEN]\n".utf8))
    exit(2)
}
switch verb {
case "add":
    seedAddWithAccessControl(account: account, tokenData: Data((arguments.dropFirst(2).first ?? "").utf8))
    print("added: \(SecCopyLastErrorMessage().map { $0 as String } ?? "ok")")
case "add-read":
    seedAddWithAccessControl(account: account, tokenData: Data((arguments.dropFirst(2).first ?? "").utf8))
    print("added: \(SecCopyLastErrorMessage().map { $0 as String } ?? "ok")")
    let token = retrieveToken(forAccount: account)
    print("token: \(token ?? "nil") status: \(SecCopyLastErrorMessage().map { $0 as String } ?? "ok")")
case "read":
    let token = retrieveToken(forAccount: account)
    print("token: \(token ?? "nil") status: \(SecCopyLastErrorMessage().map { $0 as String } ?? "ok")")
case "read-skip":
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
        kSecReturnData as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
    ]
    var item: CFTypeRef?
    print("status: \(SecItemCopyMatching(query as CFDictionary, &item))")
default:
    FileHandle.standardError.write(Data("seed004-probe: unknown verb \(verb)\n".utf8))
    exit(2)
}
