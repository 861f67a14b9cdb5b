import Foundation
import TestSupport
import Testing

/// `security set-keychain-settings --device-key tpm|file` on a software TPM: every step runs in a `security` process
/// of its own (a software TPM serves one connection at a time, and the test holds none).
@Suite(
    "Moving a keychain's device key into the TPM and back",
    .enabled(if: SoftwareTPM.unavailableReason == nil, "needs swtpm and libtss2 (scripts/bootstrap installs them)"))
struct DeviceKeyMoveTests {
    private let accounts = ["alice", "bob", "carol"]

    /// The tool with `tcti` as its TPM and, when given, the failpoint that kills it before the new key is in place.
    private func tool(_ home: TestHome, tpm tcti: String, failpoint: Bool = false) -> SecurityProcess {
        var tool = home.tool
        tool.environment["KEYCHAIN_TPM"] = tcti
        if failpoint { tool.environment["SWIFT_KEYCHAIN_FAILPOINT"] = "device-key-move" }
        return tool
    }

    /// The first five bytes of `device.key`: "SKDK" and its format (1: file, 2: sealed by a TPM).
    private func format(_ path: String) throws -> UInt8? {
        try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("device.key")).dropFirst(4).first
    }

    /// Expects the tool to die of SIGKILL at the failpoint.
    private func expectKilled(
        _ tool: SecurityProcess, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        do {
            let result = try tool.run(arguments)
            Issue.record(
                "the tool was not killed: status \(result.status), \(result.errors)", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains("signal 9"), "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// Expects every item to read back through `tool`.
    private func expectItems(
        _ tool: SecurityProcess, _ path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for account in accounts {
            let found = try tool.run(["find-generic-password", "-a", account, "-s", "svc", "-w", path])
            #expect(found.status == 0, "\(account): \(found.errors)", sourceLocation: sourceLocation)
            #expect(found.output == "secret of \(account)\n", sourceLocation: sourceLocation)
        }
    }

    @Test("in and out, every item kept; a kill before the new key is in place leaves the old one, which opens")
    func moveAndKill() throws {
        let tpm = try SoftwareTPM()
        let home = try TestHome()
        let path = home.keychain("moved")
        let file = tool(home, tpm: "none")
        var sealed = tool(home, tpm: tpm.tcti)
        #expect(try file.run(["create-keychain", "-p", "", path]).status == 0)
        for account in accounts {
            let added = try file.run([
                "add-generic-password", "-a", account, "-s", "svc", "-w", "secret of \(account)", path,
            ])
            #expect(added.status == 0, "\(added.errors)")
        }
        #expect(try file.run(["show-keychain-info", path]).output.contains("device key: file"))

        // Killed between staging the sealed key and putting it in place: the file key stays, and opens.
        try expectKilled(
            tool(home, tpm: tpm.tcti, failpoint: true), ["set-keychain-settings", "--device-key", "tpm", path])
        #expect(try format(path) == 1)
        try expectItems(file, path)
        // A killed process leaves its primary key in a TPM without a resource manager: swtpm restarts (same state).
        tpm.stop()
        try tpm.start()
        sealed = tool(home, tpm: tpm.tcti)

        let moved = try sealed.run(["set-keychain-settings", "--device-key", "tpm", path])
        #expect(moved.status == 0, "\(moved.errors)")
        #expect(try format(path) == 2)
        #expect(try sealed.run(["show-keychain-info", path]).output.contains("device key: sealed by the TPM (swtpm:"))
        try expectItems(sealed, path)
        // Sealed now: without the TPM nothing opens.
        #expect(try file.run(["find-generic-password", "-a", "alice", "-s", "svc", "-w", path]).status != 0)

        // Killed on the way back: the sealed key stays, and opens.
        try expectKilled(
            tool(home, tpm: tpm.tcti, failpoint: true), ["set-keychain-settings", "--device-key", "file", path])
        #expect(try format(path) == 2)
        tpm.stop()
        try tpm.start()
        sealed = tool(home, tpm: tpm.tcti)
        try expectItems(sealed, path)

        #expect(try sealed.run(["set-keychain-settings", "--device-key", "file", path]).status == 0)
        #expect(try format(path) == 1)
        #expect(try file.run(["show-keychain-info", path]).output.contains("device key: file"))
        try expectItems(file, path)
        // Written while out of the TPM, then moved in again: its counters exist already, and it still opens.
        #expect(
            try file.run(["add-generic-password", "-U", "-a", "alice", "-s", "svc", "-w", "secret of alice", path])
                .status == 0)
        #expect(try sealed.run(["set-keychain-settings", "--device-key", "tpm", path]).status == 0)
        try expectItems(sealed, path)
    }

    @Test("out of the TPM is refused while the passcode is entangled with it; bad values and keychaind are refused")
    func refusals() throws {
        let tpm = try SoftwareTPM()
        let home = try TestHome()
        let path = home.keychain("entangled")
        let sealed = tool(home, tpm: tpm.tcti)
        #expect(try sealed.run(["create-keychain", "-p", "1234", path]).status == 0)
        #expect(try format(path) == 2)
        let refused = try sealed.run(["set-keychain-settings", "--device-key", "file", path])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("entangled with the TPM"), "\(refused.errors)")
        #expect(try format(path) == 2)
        let bad = try sealed.run(["set-keychain-settings", "--device-key", "disk", path])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("not \"disk\""), "\(bad.errors)")
    }
}
