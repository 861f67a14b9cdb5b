import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 9, item 10 (the CLI's part): once a secret has been printed or stored, the tool's buffers hold no copy.
@Suite("Reliability 10: the tool's buffers are zeroed once a secret has passed through them")
struct SecretMemoryTests {
    /// Reading another process's memory needs the right to trace it; the tool is not dumpable, so only root has it.
    static var canReadMemory: Bool { geteuid() == 0 }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test(
        "Reliability 10: a password printed by -w, -g or dump-keychain -d leaves no copy in the tool once flushed",
        .enabled(if: canReadMemory, "reading the tool's memory needs root (it is not dumpable)"),
        arguments: [
            ("find-generic-password -a alice -w", false), ("find-generic-password -a alice -g", true),
            ("dump-keychain -d", true),
        ])
    func printedPassword(command: String, uppercase: Bool) throws {
        let home = try TestHome()
        // Not printable, so it is printed as hex: text that only the tool's output path ever makes.
        let secret = [UInt8(1)] + (0..<31).map { _ in UInt8.random(in: 0...255) }
        let added = try home.tool.run(
            ["add-generic-password", "-a", "alice", "-s", "api", "-X", Self.hex(secret)])
        #expect(added.status == 0, "\(added.errors)")
        let session = try PipeSession(SecurityProcess.executable, ["-i"], process: home.tool)
        session.send(command)
        // Once the next command has answered, the first one is over (its buffers flushed and zeroed).
        session.send("error 0")
        try session.waitForOutput(endingWith: "No error.\n")
        // The middle of it: a freed heap block keeps all of its bytes but the first 16 (the allocator's links).
        let printed = Array((uppercase ? Self.hex(secret).uppercased() : Self.hex(secret)).utf8)
        #expect(try !ProcessInspection.writableMemory(of: session.pid, contains: Array(printed[16..<48])))
        _ = try session.finish()
    }

    @Test(
        "Reliability 10: a password read from standard input leaves no copy in the tool once stored",
        .enabled(if: canReadMemory, "reading the tool's memory needs root (it is not dumpable)"))
    func readPassword() throws {
        let home = try TestHome()
        let secret = "stdin-secret-" + UUID().uuidString
        let session = try PipeSession(SecurityProcess.executable, ["-i"], process: home.tool)
        session.send("add-generic-password -a alice -s api -w")
        session.send(secret)
        session.send("error 0")
        try session.waitForOutput(endingWith: "No error.\n")
        #expect(try !ProcessInspection.writableMemory(of: session.pid, contains: Array(Array(secret.utf8)[16..<48])))
        _ = try session.finish()
        #expect(try home.tool.run(["find-generic-password", "-a", "alice", "-w"]).output == secret + "\n")
    }

    @Test(
        "Issue 20, item 6: a keychain password read from standard input leaves no copy in the tool once the keychain is unlocked",
        .enabled(if: canReadMemory, "reading the tool's memory needs root (it is not dumpable)"))
    func unlockPassword() throws {
        let home = try TestHome()
        // Long, so a String of it would sit in a heap block few later allocations reuse.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let passcode = String((0..<700).map { _ in alphabet.randomElement() ?? "x" })
        let path = try home.makeLockedKeychain(
            "locked", passcode: passcode, passwords: [(account: "alice", service: "api", secret: "s3cret")])
        let session = try PipeSession(SecurityProcess.executable, ["-i"], process: home.tool)
        session.send("unlock-keychain \(path)")
        session.send(passcode)
        // The read shows the unlock worked; the next command's answer, that the commands before it are over.
        session.send("find-generic-password -a alice -s api -w \(path)")
        session.send("error 0")
        try session.waitForOutput(endingWith: "s3cret\nError: 0x00000000 0 No error.\n")
        let middle = Array(Array(passcode.utf8)[300..<364])
        #expect(try !ProcessInspection.writableMemory(of: session.pid, contains: middle))
        _ = try session.finish()
    }
}
