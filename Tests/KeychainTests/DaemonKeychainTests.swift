import Foundation
import TestSupport
import Testing

@testable import Keychain

#if canImport(Glibc)
    import Glibc
#endif

/// The `Keychain` API through a real keychaind. The tests name identities, which the daemon honours only for root
/// (everyone else's comes from the kernel), so they run as root (as CI does) and skip otherwise.
@Suite(
    "Keychain through keychaind", .serialized, .enabled(if: getuid() == 0, "needs root to act as several apps"),
    .timeLimit(.minutes(2)))
struct DaemonKeychainTests {
    private func keychain(_ daemon: DaemonProcess, _ identity: ApplicationIdentity, service: String = "api") -> Keychain
    {
        Keychain.$environmentOverride.withValue(["KEYCHAIN_DAEMON": daemon.socketPath]) {
            Keychain(service: service, identity: identity)
        }
    }

    @Test("The default keychain is the daemon's when KEYCHAIN_DAEMON names its socket")
    func defaultIsDaemon() async throws {
        let daemon = try DaemonProcess()
        let identity = try ApplicationIdentity(applicationIdentifier: "TEAM.a")
        let first = keychain(daemon, identity)
        #expect(first.directory == nil)
        try await first.set("s3cret", for: "alice")
        #expect(try await keychain(daemon, identity).get("alice") == "s3cret")
        #expect(FileManager.default.fileExists(atPath: daemon.keychainDirectory(of: getuid()).path))
    }

    @Test("changes() in one app sees another app's write to a shared group, never one to a group it lacks")
    func changesAcrossApps() async throws {
        let daemon = try DaemonProcess()
        let reader = keychain(
            daemon,
            try ApplicationIdentity(applicationIdentifier: "TEAM.reader", accessGroups: ["TEAM.reader", "TEAM.shared"])
        ).accessGroup("TEAM.shared")
        let writer = try ApplicationIdentity(
            applicationIdentifier: "TEAM.writer", accessGroups: ["TEAM.writer", "TEAM.shared"])
        let changes = try reader.changes()
        try await keychain(daemon, writer).accessGroup("TEAM.writer").set("private", for: "hidden")
        try await keychain(daemon, writer).accessGroup("TEAM.shared").set("shared", for: "seen")
        for await change in changes {
            #expect(change.item.account == "seen")
            break
        }
    }
}

/// Access control through keychaind (DESIGN §11): the daemon never prompts; it answers that authentication is
/// needed, and the client's context asks (here a script) and sends the request again.
@Suite(
    "Access control through keychaind", .serialized, .enabled(if: getuid() == 0, "needs root to name an identity"),
    .timeLimit(.minutes(2)))
struct DaemonAccessControlTests {
    @Test("The client asks for the passcode, the daemon checks it; a lock through the daemon asks again")
    func userPresenceThroughTheDaemon() async throws {
        let daemon = try DaemonProcess()
        let identity = try ApplicationIdentity(applicationIdentifier: "TEAM.a")
        let keychain = Keychain.$environmentOverride.withValue(["KEYCHAIN_DAEMON": daemon.socketPath]) {
            Keychain(service: "api", identity: identity)
        }
        try await keychain.setPasscode("2468")
        let prompter = ScriptedPrompter([.type("2468"), .type("2468")])
        let context = scriptedContext(prompter)
        context.reuseDuration = 300
        let protected = keychain.accessControl([.userPresence]).authenticationContext(context)
        try await protected.set("s3cret", for: "alice")
        #expect(prompter.asked.isEmpty)
        #expect(try await protected.get("alice") == "s3cret")
        #expect(try await protected.get("alice") == "s3cret")
        #expect(prompter.asked.count == 1)
        try await keychain.lock()
        try await keychain.unlock(passcode: "2468")
        #expect(try await protected.get("alice") == "s3cret")
        #expect(prompter.asked.count == 2)
        let refusing = scriptedContext(ScriptedPrompter([]))
        refusing.interactionNotAllowed = true
        await #expect(throws: KeychainError.interactionNotAllowed) {
            try await keychain.authenticationContext(refusing).get("alice")
        }
    }
}
