import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Issue 20, item 7: a process's lock state of an embedded keychain lasts until `lock()`, however many values come
/// and go. A new user's recipe, as a program: `try Keychain(service: "x").unlock(passcode:)` (a value released at
/// once), then the seed's own `.userPresence` add (seeds/004, `seedAddWithAccessControl`) and its `retrieveToken`,
/// whose prompt a pinentry answers.
@Suite("Item 7: an unlock through a temporary Keychain value lasts for the seed's SecItem calls")
struct SeedUnlockLastsTests {
    @Test("The seed's .userPresence add and read succeed after an unlock by a value that is gone")
    func unlockByTemporaryValue() throws {
        let directory = try TemporaryDirectory()
        let engine = try Engine(storage: .directory(directory.keychain), options: EngineOptions(passcodeCost: .minimum))
        try engine.setPasscode("2468", current: nil)
        // A pinentry that answers every GETPIN with the passcode: the seed's read asks for it.
        let pinentry = directory.file("pinentry")
        let script = """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while read -r command rest; do
              case "$command" in
                GETPIN) printf '%s\\n' 'D 2468' 'OK' ;;
                BYE) echo 'OK closing connection'; exit 0 ;;
                *) echo 'OK' ;;
              esac
            done
            """
        try ExecutableCopy.write(Data(script.utf8), to: pinentry.path)
        let environment = [
            "KEYCHAIN_HOME": directory.keychain.path, "KEYCHAIN_DAEMON": "off", "PATH": "/usr/bin:/bin",
            "PINENTRY_PROGRAM": pinentry.path, "SWIFT_BACKTRACE": "enable=no", "HOME": directory.url.path,
            "SEED_UNLOCK_WITH_KEYCHAIN": "2468",
        ]
        let process = try SpawnedProcess(
            BuiltExecutable.named("seed004-probe"), ["add-read", "carol", "seed-token"], environment: environment)
        _ = process.wait()
        let lines = process.readOutput().split(separator: "\n").map(String.init)
        #expect(lines.first == "added: ok", "\(lines) \(process.readErrors())")
        #expect(lines.dropFirst().first?.hasPrefix("token: seed-token") == true, "\(lines)")
    }
}
